/// Why a request to etcd failed: an extensible struct whose `code` says what a
/// caller can do about it, and whose `message` says what happened in words a
/// user can act on.
///
/// Codes are compared, not switched over exhaustively, so that new ones can be
/// added without breaking callers:
///
/// ```swift
/// catch let error as EtcdError where error.code == .unavailable { … }
/// ```
public struct EtcdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unavailable, compacted, leaseNotFound, invalidResponse, canceled, requestFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// No member could answer in time: none reachable, no quorum or no leader,
        /// or the request's deadline passed. Worth retrying later.
        public static let unavailable = Code(.unavailable)
        /// The revision asked for has been compacted away: reload the current
        /// state, then watch from its revision.
        public static let compacted = Code(.compacted)
        /// The lease does not exist (it expired or was revoked).
        public static let leaseNotFound = Code(.leaseNotFound)
        /// The answer was not what etcd's gateway sends: wrong endpoint or a bug.
        public static let invalidResponse = Code(.invalidResponse)
        /// The request or watch was canceled, by the caller or by etcd.
        public static let canceled = Code(.canceled)
        /// etcd refused the request; `grpcCode` and `message` say why.
        public static let requestFailed = Code(.requestFailed)

        /// The code's name, as written in Swift.
        public var description: String {
            switch base {
            case .unavailable: "unavailable"
            case .compacted: "compacted"
            case .leaseNotFound: "leaseNotFound"
            case .invalidResponse: "invalidResponse"
            case .canceled: "canceled"
            case .requestFailed: "requestFailed"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, for a person.
    public let message: String
    /// The gRPC status code the gateway reported (14 is UNAVAILABLE), when it reported one.
    public let grpcCode: Int?
    /// True when a write may have been applied although it failed (its deadline
    /// passed after it was sent): the caller must read before assuming either way.
    public let mayHaveBeenApplied: Bool
    /// For `compacted`: the oldest revision still kept, when etcd said.
    public let compactRevision: Int64?

    /// Creates an error; the static functions below cover the usual cases.
    public init(
        code: Code, message: String, grpcCode: Int? = nil, mayHaveBeenApplied: Bool = false,
        compactRevision: Int64? = nil
    ) {
        self.code = code
        self.message = message
        self.grpcCode = grpcCode
        self.mayHaveBeenApplied = mayHaveBeenApplied
        self.compactRevision = compactRevision
    }

    /// No member answered in time.
    public static func unavailable(_ message: String, mayHaveBeenApplied: Bool = false) -> EtcdError {
        EtcdError(code: .unavailable, message: message, mayHaveBeenApplied: mayHaveBeenApplied)
    }

    /// The revision asked for is compacted; `compactRevision` is the oldest one kept, when known.
    public static func compacted(compactRevision: Int64?) -> EtcdError {
        let detail = compactRevision.map { ", the oldest kept is \($0)" } ?? ""
        return EtcdError(
            code: .compacted, message: "the revision asked for has been compacted\(detail): reload and watch again",
            grpcCode: 11, compactRevision: compactRevision)
    }

    /// The gateway's answer could not be understood.
    public static func invalidResponse(_ message: String) -> EtcdError {
        EtcdError(code: .invalidResponse, message: "etcd's answer was not understood: \(message)")
    }

    /// The request or watch was canceled.
    public static func canceled(_ message: String) -> EtcdError {
        EtcdError(code: .canceled, message: message)
    }

    /// A description with the code, the message and, when known, the gRPC code.
    public var description: String {
        var text = "etcd \(code): \(message)"
        if let grpcCode { text += " (gRPC code \(grpcCode))" }
        if mayHaveBeenApplied { text += "; the write may have been applied" }
        return text
    }
}
