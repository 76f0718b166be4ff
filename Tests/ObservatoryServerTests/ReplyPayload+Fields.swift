import ObservatoryWire

/// The fields tests read from write replies.
extension ReplyPayload {
    /// The `version` of a `set` or `delete` reply.
    var version: Int64? {
        switch self {
        case .set(_, let version, _, _), .delete(_, let version, _): version
        default: nil
        }
    }

    /// The `changed` of a `set` reply.
    var changed: Bool? {
        guard case .set(_, _, let changed, _) = self else { return nil }
        return changed
    }
}
