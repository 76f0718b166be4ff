// When storage refuses a write: what each kind of write may go through.
extension Storage {
    /// What a write holds, which decides when storage refuses it.
    enum WriteKind {
        /// A change not applied yet: refused while storage fails or refuses changes.
        case change
        /// Changes applied in memory already (a batch): written while a failed
        /// fsync waits for recovery too (which snapshots them), as long as the log
        /// can be trusted.
        case batch
        /// A reservation of session numbers, which makes no change: written while changes are
        /// refused until a restart, so that the restart still skips the numbers.
        case sessionReservation
    }

    /// Throws why storage fails or refuses changes when `isRefused`, or that it is closed.
    func checkCanWrite(_ state: State, unless isRefused: Bool) throws(StorageError) {
        if isRefused, let reason = state.durability.refusalReason {
            throw StorageError(code: .unavailable, message: reason)
        }
        guard !state.isClosed, !state.isAbandoned else {
            throw StorageError(code: .unavailable, message: "storage is closed")
        }
    }

    /// Throws why storage takes no change now: it failed, or it is closed.
    func checkAcceptsChanges(_ state: State) throws(StorageError) {
        try checkCanWrite(state, unless: state.durability.isFailed)
    }
}
