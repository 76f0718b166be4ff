import Observatory
import ObservatoryLogging
import Synchronization

/// Hands out session ids: `s1`, `s2`, … never repeated within an epoch.
///
/// With storage, numbers are reserved in blocks by a reservation record, so a restart
/// continues above every number this process may have handed out
/// (`SessionReservation` says when a record is written, and how far).
///
/// ## Locking
/// The counter is atomic; the reservation is a `Locked` `SessionReservation`, held only to
/// decide whether a number needs a record and to note one written. Nothing
/// blocks under it: the record's `write(2)` (once per half `reservationBlock`
/// sessions) runs after it is released, as storage's one write in flight, with no lock held.
final class SessionNumbers: Sendable {
    /// How many session numbers one reservation record reserves.
    static let reservationBlock: Int64 = 1_024

    private let counter: Atomic<Int64>
    /// Which session numbers are recorded as possibly used.
    private let reservation: Locked<SessionReservation>
    private let storage: Storage?
    private let logger: Logger
    /// What every id starts with: `s`, or in a cluster `s<node>.`, since the nodes
    /// of one epoch count on their own.
    private let idPrefix: String

    /// Numbers after `reservation`, reserved with `storage`; without storage, no reservation is needed.
    /// A cluster node passes its `nodeTag`, unique among the nodes.
    init(after reservation: Int64, storage: Storage?, logger: Logger, nodeTag: String? = nil) {
        idPrefix = nodeTag.map { "s\($0)." } ?? "s"
        counter = Atomic(reservation)
        self.reservation = Locked(
            SessionReservation(recorded: storage == nil ? .max : reservation, block: Self.reservationBlock))
        self.storage = storage
        self.logger = logger
    }

    /// A new session id; with storage, handed out once a reservation record covers it.
    func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        if let storage, let through = reservation.withLock({ $0.handingOut(number) }) {
            var written = true
            do throws(StorageError) {
                try storage.reserveSessions(through: through)
            } catch {
                written = false
                logger.error("storage: cannot record used session numbers: \(error.message)")
            }
            reservation.withLock { $0.recorded(through: through, written: written) }
        }
        return "\(idPrefix)\(number)"
    }
}
