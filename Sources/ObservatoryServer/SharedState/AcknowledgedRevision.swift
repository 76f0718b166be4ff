import Synchronization

/// How far replies to writes and events may go out, as one number that every
/// connection reads without a lock on each delivery.
///
/// A final class around an atomic, not a protocol requirement, so that reading it
/// costs a load and no call: the output of every observer reads it per event.
final class AcknowledgedRevision: Sendable {
    private let revision: Atomic<Int64>

    /// Starts at `revision`; `.max` acknowledges everything (a store without storage).
    init(_ revision: Int64) {
        self.revision = Atomic(revision)
    }

    /// The revision up to which changes are acknowledged.
    var value: Int64 {
        revision.load(ordering: .acquiring)
    }

    /// Moves it to `revision` (its writer holds the lock that orders the moves).
    func advance(to revision: Int64) {
        self.revision.store(revision, ordering: .releasing)
    }
}
