/// A close frame's status code (RFC 6455 §7.4).
///
/// A struct over the 16-bit value, so that codes from the registered ranges (3000 to
/// 4999) can be carried as well as the named ones.
public struct WebSocketCloseCode: Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit code.
    public let value: UInt16

    /// The code with this value.
    public init(_ value: UInt16) {
        self.value = value
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the server is shutting down, or the browser leaves the page.
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: a frame broke RFC 6455 (an unmasked client frame, reserved bits, ...).
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a kind of data the endpoint does not accept (binary messages here).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1007: a text message or close reason that is not valid UTF-8.
    public static let invalidPayloadData = WebSocketCloseCode(1007)
    /// 1008: a message that breaks the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a frame or message over the size limit.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether the code may be sent in a close frame: 1000 to 1003 and 1007 to 1011,
    /// or the ranges for libraries and applications (3000 to 4999). 1005 and 1006
    /// stand for "no code" and "closed abnormally" locally and must never be sent.
    public var isAllowedOnTheWire: Bool {
        switch value {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    /// The number and, for the named codes, the name.
    public var description: String {
        let name: String? =
            switch value {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1007: "invalid payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1011: "internal error"
            default: nil
            }
        return name.map { "\(value) (\($0))" } ?? "\(value)"
    }
}
