import ObservatoryWire

extension ReplyPayload {
    /// The version a write's reply names (0 for other replies).
    var writtenVersion: Int64 {
        switch self {
        case .set(_, let version, _, _), .delete(_, let version, _): version
        case .batch(let revision, _, _): revision
        default: 0
        }
    }
}
