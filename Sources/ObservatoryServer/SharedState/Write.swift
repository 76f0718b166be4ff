import ObservatoryWire

/// One write as a session asks the shared state for it: a `set` or a `delete`,
/// each conditional on `ifVersion` and retry-safe with `requestId`.
enum Write: Sendable {
    /// Writes `value` to `key`; a session-bound key is deleted when its session
    /// ends, an expiring key (`ttl`, in seconds) when its time is up.
    case set(
        key: String, value: EncodedJSON, ifVersion: Int64?, sessionBound: Bool, requestId: String?,
        ttl: Int64? = nil)
    /// Deletes `key`.
    case delete(key: String, ifVersion: Int64?, requestId: String?)
}
