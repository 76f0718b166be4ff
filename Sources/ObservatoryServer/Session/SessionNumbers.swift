import Observatory
import ObservatoryLogging
import Synchronization

/// Hands out session ids: `s1`, `s2`, … never repeated within an epoch.
///
/// With storage, numbers are reserved in blocks by a lease record, so a restart
/// continues above every number this process may have handed out.
///
/// ## Locking
/// The counter is atomic; the lease is a `Locked` number, held while storage
/// writes a lease record (a `write(2)`, once per `leaseBlock` sessions) so that
/// no number is handed out above the last recorded lease.
final class SessionNumbers: Sendable {
    /// How many session numbers one lease record reserves.
    static let leaseBlock: Int64 = 1_024

    private let counter: Atomic<Int64>
    /// Session numbers up to this one are recorded as possibly used.
    private let lease: Locked<Int64>
    private let storage: Storage?
    private let logger: Logger
    /// What every id starts with: `s`, or in a cluster `s<node>.`, since the nodes
    /// of one epoch count on their own.
    private let idPrefix: String

    /// Numbers after `lease`, reserved with `storage`; without storage, no lease is needed.
    /// A cluster node passes its `nodeTag`, unique among the nodes.
    init(after lease: Int64, storage: Storage?, logger: Logger, nodeTag: String? = nil) {
        idPrefix = nodeTag.map { "s\($0)." } ?? "s"
        counter = Atomic(lease)
        self.lease = Locked(storage == nil ? .max : lease)
        self.storage = storage
        self.logger = logger
    }

    /// A new session id.
    func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        lease.withLock { lease in
            guard number > lease, let storage else { return }
            let reserved = number + Self.leaseBlock
            do throws(StorageError) {
                try storage.reserveSessions(through: reserved)
                lease = reserved
            } catch {
                logger.error("storage: cannot record used session numbers: \(error.message)")
            }
        }
        return "\(idPrefix)\(number)"
    }
}
