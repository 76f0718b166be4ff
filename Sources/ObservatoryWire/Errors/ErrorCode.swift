/// The machine-readable code of a protocol error, as sent in `"error":{"code":…}`.
///
/// A struct rather than an enum so that a client can decode codes added by a newer
/// server (``init(rawValue:)``) without failing, while the codes of protocol version 1
/// are spelled as `static let` constants.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code as it appears on the wire, for example `"conflict"`.
    public let rawValue: String

    /// Wraps any code string, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw wire spelling, so that logs show exactly what was sent.
    public var description: String { rawValue }

    /// The frame is not a JSON object (not JSON, invalid UTF-8, an array, a number, …).
    public static let badFrame = ErrorCode(rawValue: "bad_frame")
    /// The frame is longer than the receiver's frame limit; the connection is closed.
    public static let frameTooLarge = ErrorCode(rawValue: "frame_too_large")
    /// The `op` names no operation this server knows.
    public static let unknownOperation = ErrorCode(rawValue: "unknown_op")
    /// A field is missing or has the wrong type (or `id`/`op` are unusable).
    public static let badRequest = ErrorCode(rawValue: "bad_request")
    /// A key or prefix breaks the key rules (length, control characters, whitespace).
    public static let invalidKey = ErrorCode(rawValue: "invalid_key")
    /// A value's encoded size exceeds the server's value limit.
    public static let valueTooLarge = ErrorCode(rawValue: "value_too_large")
    /// The key does not exist.
    public static let notFound = ErrorCode(rawValue: "not_found")
    /// An `ifVersion` precondition failed; the error carries the current version.
    public static let conflict = ErrorCode(rawValue: "conflict")
    /// Authentication is required or the token is wrong.
    public static let unauthenticated = ErrorCode(rawValue: "unauthenticated")
    /// The connection's identity may not read or write this key.
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// A server limit (connections, keys, observations) is reached.
    public static let limitExceeded = ErrorCode(rawValue: "limit_exceeded")
    /// The connection did not read its events fast enough and is closed.
    public static let slowConsumer = ErrorCode(rawValue: "slow_consumer")
    /// The server is shutting down and accepts no new requests.
    public static let shuttingDown = ErrorCode(rawValue: "shutting_down")
    /// Cluster mode: the shared state cannot be reached (no quorum, or the node
    /// lost the continuity of its view). A write answered so may or may not have
    /// been applied: send it again with its `requestId`.
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// The server failed in a way that is not the client's fault.
    public static let internalError = ErrorCode(rawValue: "internal")
}
