import ObservatoryWire

/// A write that carried a `requestId`, remembered so that the same write sent
/// again is answered from here instead of being applied twice (docs/protocol.md,
/// "Retry-safe writes").
struct AppliedWrite: Sendable, Equatable {
    /// The client's id for the write.
    let requestId: String
    /// When it was applied, in milliseconds since 1970 (wall time, so that it
    /// means the same after a restart).
    let appliedAt: Int64
    /// The fields of its reply.
    let reply: Reply

    /// The reply fields a duplicate is answered with (plus `duplicate: true`).
    enum Reply: Sendable, Equatable {
        case set(key: String, version: Int64, changed: Bool)
        case delete(key: String, version: Int64)
        /// A batch: its revision and the result of each operation.
        case batch(revision: Int64, results: [BatchResult])
    }

    /// The payload of the reply to a duplicate of this write.
    var duplicatePayload: ReplyPayload {
        switch reply {
        case .set(let key, let version, let changed):
            .set(key: key, version: version, changed: changed, duplicate: true)
        case .delete(let key, let version): .delete(key: key, version: version, duplicate: true)
        case .batch(let revision, let results): .batch(revision: revision, results: results, duplicate: true)
        }
    }
}
