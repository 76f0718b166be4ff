/// A frame's opcode (RFC 6455 §5.2): what its payload is.
///
/// A struct over the 4-bit value rather than an enum, so that a decoded reserved
/// opcode can be named in an error before the connection is closed.
public struct WebSocketOpcode: Sendable, Hashable, CustomStringConvertible {
    /// The 4-bit value, 0 to 15.
    public let value: UInt8

    /// The opcode with this 4-bit value (higher bits are dropped).
    public init(_ value: UInt8) {
        self.value = value & 0x0F
    }

    /// A further fragment of a text or binary message.
    public static let continuation = WebSocketOpcode(0x0)
    /// The first frame of a UTF-8 text message.
    public static let text = WebSocketOpcode(0x1)
    /// The first frame of a binary message.
    public static let binary = WebSocketOpcode(0x2)
    /// Closes the connection; the payload is an optional code and reason.
    public static let close = WebSocketOpcode(0x8)
    /// Asks the peer for a pong with the same payload.
    public static let ping = WebSocketOpcode(0x9)
    /// Answers a ping (or, unasked, says the peer is alive).
    public static let pong = WebSocketOpcode(0xA)

    /// Whether it is close, ping or pong: at most 125 bytes, never fragmented, and
    /// allowed between the fragments of a message.
    public var isControl: Bool {
        value & 0x08 != 0
    }

    /// Whether RFC 6455 defines it (the others are reserved and close the connection with 1002).
    public var isDefined: Bool {
        switch value {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: true
        default: false
        }
    }

    /// The name, such as `text`, or `reserved(3)`.
    public var description: String {
        switch value {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        case 0xA: "pong"
        default: "reserved(\(value))"
        }
    }
}
