import Observatory
import ObservatoryWire

/// Shorter forms of the store's reads for programs that embed the server and
/// for tests: every key of a prefix at once, and an observation with a fixed
/// choice of subscribing.
extension SharedStore {
    /// The keys starting with `prefix`, sorted by their bytes, with their versions.
    public func list(prefix: String) -> [KeyVersion] {
        list(prefix: prefix, after: nil, limit: .max).keys
    }

    /// Takes the snapshot of `target` and, if `subscribe` is true, starts `observer`
    /// receiving its later changes through `receive`, in one step; returns the
    /// snapshot with the revision it was taken at.
    public func observe(
        _ target: Target,
        by observer: some Observer,
        subscribe: Bool,
        receive: @escaping (StoreChange) -> Void
    ) -> (values: [RawValueEntry], revision: Int64) {
        let observation = observe(target, by: observer, subscribe: { _ in subscribe }, receive: receive)
        return (observation.values, observation.revision)
    }

    /// The bytes the entries take in memory and those of the recent changes kept for
    /// resuming, as counted against `limits.maxStoreBytes` and `limits.historyBytes`.
    public var bytes: (store: Int, history: Int) {
        guarded.withLock { ($0.data.bytes, $0.history.bytes) }
    }
}
