/// The rule for recording session numbers as possibly used, as a plain value:
/// which number needs a reservation record before it is handed out, and how far.
///
/// A number may be handed out once a reservation record at or above it is in the log,
/// so that a restart continues above every number this process may have used.
/// Reservations are recorded a block ahead, and renewed once half the block is used,
/// so that the next sessions find their numbers recorded already; the thread
/// that renews writes the record (`write(2)`) holding no lock of its own, and
/// another thread that needs a number past the recorded reservation meanwhile records
/// one itself (storage's lock orders the two records; a restart takes the
/// highest).
struct SessionReservation: Equatable {
    /// Numbers up to this one are recorded as possibly used.
    private(set) var recorded: Int64
    /// Whether a thread is writing a renewal.
    private(set) var isRenewing = false
    /// How many numbers one record reserves beyond the one that asks for it.
    let block: Int64

    init(recorded: Int64, block: Int64) {
        self.recorded = recorded
        self.block = block
    }

    /// `number` is about to be handed out. Returns the reservation to record first, if
    /// any: always when `number` is past the recorded reservation; half a block
    /// before, unless a renewal is under way.
    mutating func handingOut(_ number: Int64) -> Int64? {
        if number > recorded {
            isRenewing = true
            return number + block
        }
        guard number > recorded - block / 2, !isRenewing else { return nil }
        isRenewing = true
        return recorded + block
    }

    /// A reservation record through `reservation` was written (`true`) or failed.
    mutating func recorded(through reservation: Int64, written: Bool) {
        isRenewing = false
        if written { recorded = max(recorded, reservation) }
    }
}
