/// A protocol error: what a failure reply carries in its `"error"` object.
///
/// The server builds these to answer bad requests; the client receives them in
/// failure replies and throws them to its callers. The ``message`` is meant for a
/// person: it says what was wrong and, where possible, what was expected.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable code, for example ``ErrorCode/conflict``.
    public var code: ErrorCode
    /// A human-readable explanation the user can act on.
    public var message: String
    /// For ``ErrorCode/conflict``: the key's current version (0 when the key is missing).
    public var currentVersion: Int64?
    /// For ``ErrorCode/slowConsumer``: every event up to this revision was sent
    /// before the close, so an `observe` with `fromRevision` set to it misses nothing.
    public var revision: Int64?
    /// For the failure of a `batch`: the position in its `ops` of the operation that failed.
    public var index: Int?

    /// Creates an error from its parts.
    public init(
        code: ErrorCode, message: String, currentVersion: Int64? = nil, revision: Int64? = nil, index: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.currentVersion = currentVersion
        self.revision = revision
        self.index = index
    }

    /// The same error, as the failure of the operation at `index` of a batch.
    public func at(index: Int) -> WireError {
        var error = self
        error.index = index
        return error
    }

    /// `code: message`, for logs.
    public var description: String {
        var text = "\(code): \(message)"
        if let currentVersion {
            text += " (current version \(currentVersion))"
        } else if let revision {
            text += " (resume after revision \(revision))"
        }
        if let index { text += " (batch operation \(index))" }
        return text
    }
}

extension WireError {
    /// A frame that is not a JSON object; `detail` says why (for example the parse error).
    public static func badFrame(_ detail: String) -> WireError {
        WireError(code: .badFrame, message: "frame must be one JSON object on one line: \(detail)")
    }

    /// A frame longer than the limit.
    public static func frameTooLarge(limit: Int) -> WireError {
        WireError(code: .frameTooLarge, message: "frame exceeds the limit of \(limit) bytes")
    }

    /// An `op` that names no known operation.
    public static func unknownOperation(_ name: String) -> WireError {
        WireError(
            code: .unknownOperation,
            message: "unknown op \"\(name)\"; expected one of: \(OperationKind.allNames)"
        )
    }

    /// A missing or ill-typed request field; `expected` describes the right form.
    public static func badRequest(field: String, expected: String) -> WireError {
        WireError(code: .badRequest, message: "field \"\(field)\" must be \(expected)")
    }

    /// A value whose encoded size is above the limit.
    public static func valueTooLarge(size: Int, limit: Int) -> WireError {
        WireError(
            code: .valueTooLarge,
            message: "value is \(size) bytes when encoded; the limit is \(limit) bytes (limits.maxValueBytes)"
        )
    }

    /// A missing key.
    public static func notFound(key: String) -> WireError {
        WireError(code: .notFound, message: "key \"\(key)\" does not exist")
    }

    /// A failed `ifVersion` precondition; `current` is the key's version, 0 when missing.
    public static func conflict(key: String, expected: Int64, current: Int64) -> WireError {
        WireError(
            code: .conflict,
            message: "key \"\(key)\" is at version \(current), not at the expected version \(expected)",
            currentVersion: current
        )
    }

    /// The error that closes a connection whose events do not fit in `limit`
    /// bytes; every event up to `revision` was sent before it.
    public static func slowConsumer(limit: Int, revision: Int64) -> WireError {
        WireError(
            code: .slowConsumer,
            message: "this connection fell more than \(limit) bytes behind its events and is closed; "
                + "observe again with fromRevision \(revision) to miss nothing",
            revision: revision
        )
    }

    /// A conditional `delete` of a missing key: there is nothing to delete,
    /// whatever version was expected (docs/protocol.md answers it with `conflict`).
    public static func conflictDeletingMissing(key: String) -> WireError {
        WireError(
            code: .conflict,
            message: "key \"\(key)\" does not exist (version 0): there is nothing to delete",
            currentVersion: 0
        )
    }
}
