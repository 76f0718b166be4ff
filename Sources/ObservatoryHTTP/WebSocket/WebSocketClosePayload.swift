/// The payload of a close frame: a status code and an optional UTF-8 reason.
///
/// An empty close payload (no code at all) is valid and decodes to `nil` in
/// ``decode(_:)``; a reply to it carries no code either.
public struct WebSocketClosePayload: Sendable, Hashable {
    /// The longest reason that fits a control frame: 125 bytes less the 2-byte code.
    public static let maxReasonBytes = 123

    /// Why the connection closes.
    public var code: WebSocketCloseCode
    /// Words for a person; may be empty.
    public var reason: String

    /// Creates a payload.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The code in network byte order, then the reason cut to ``maxReasonBytes``
    /// (at a character boundary, so it stays valid UTF-8).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [UInt8(code.value >> 8), UInt8(truncatingIfNeeded: code.value)]
        var reasonBytes = 0
        for character in reason {
            let utf8 = character.utf8
            guard reasonBytes + utf8.count <= Self.maxReasonBytes else { break }
            bytes.append(contentsOf: utf8)
            reasonBytes += utf8.count
        }
        return bytes
    }

    /// The code and reason of a received close frame's payload, or `nil` for an empty one.
    ///
    /// - Throws: ``WebSocketError`` `invalidClosePayload` (1002) for a 1-byte payload or
    ///   a code that may not be sent, `invalidUTF8` (1007) for a reason that is not UTF-8.
    public static func decode(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketClosePayload? {
        guard !payload.isEmpty else { return nil }
        guard payload.count >= 2 else { throw .invalidClosePayload("a close payload of 1 byte has no whole code") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isAllowedOnTheWire else {
            throw .invalidClosePayload("close code \(code.value) may not be sent")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw .invalidUTF8("the close reason is not valid UTF-8")
        }
        return WebSocketClosePayload(code: code, reason: reason)
    }
}
