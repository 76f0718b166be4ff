/// Joins fragmented frames into messages (RFC 6455 §5.4) and checks what a frame
/// decoder cannot: the order of fragments, the message limit, and UTF-8 in text.
///
/// Control frames may arrive between the fragments of a message and come out at
/// once; the message in progress continues after them.
///
/// ```swift
/// var assembler = WebSocketMessageAssembler(maxMessageBytes: maxFrameBytes)
/// while let frame = try decoder.next() {
///     if let message = try assembler.receive(frame) { handle(message) }
/// }
/// ```
///
/// A failure's ``WebSocketError/closeCode`` is the code to close with: 1002 for
/// fragments out of order, 1007 for invalid UTF-8, 1009 for a message over the limit.
public struct WebSocketMessageAssembler: Sendable {
    /// The default message limit: 1 MiB, the line protocol's default frame limit.
    public static let defaultMaxMessageBytes = 1 << 20

    /// The most bytes a message may have, over all its fragments.
    public let maxMessageBytes: Int

    /// The opcode of the unfinished message (text or binary), or `nil` between messages.
    private var messageOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []

    /// Creates an assembler with a message limit.
    public init(maxMessageBytes: Int = defaultMaxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a fragmented message is unfinished.
    public var isInsideMessage: Bool {
        messageOpcode != nil
    }

    /// The bytes of memory held for the fragments of an unfinished message.
    public var retainedByteCount: Int {
        fragments.capacity
    }

    /// Takes one frame; returns the message it completes, a control frame's content,
    /// or `nil` for a fragment that does not finish its message.
    ///
    /// - Throws: ``WebSocketError``: `unexpectedContinuation` or `expectedContinuation`
    ///   (1002), `messageTooLarge` (1009), `invalidUTF8` (1007), `invalidClosePayload` (1002).
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketMessage? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return .close(try WebSocketClosePayload.decode(frame.payload))
        case .continuation:
            guard let opcode = messageOpcode else {
                throw .protocolError(.unexpectedContinuation, "a continuation frame arrived with no message begun")
            }
            try addFragment(frame.payload)
            return frame.fin ? try finishMessage(opcode) : nil
        default:
            guard messageOpcode == nil else {
                throw .protocolError(
                    .expectedContinuation, "a new \(frame.opcode) frame arrived inside a fragmented message")
            }
            if frame.fin {
                // The common case, one frame per message: no copy into the fragment buffer.
                guard frame.payload.count <= maxMessageBytes else {
                    throw .tooLarge(.messageTooLarge, limit: maxMessageBytes)
                }
                return try Self.message(frame.opcode, frame.payload)
            }
            messageOpcode = frame.opcode
            try addFragment(frame.payload)
            return nil
        }
    }

    private mutating func addFragment(_ payload: [UInt8]) throws(WebSocketError) {
        guard payload.count <= maxMessageBytes - fragments.count else {
            throw .tooLarge(.messageTooLarge, limit: maxMessageBytes)
        }
        fragments.append(contentsOf: payload)
    }

    private mutating func finishMessage(_ opcode: WebSocketOpcode) throws(WebSocketError) -> WebSocketMessage {
        let payload = fragments
        fragments = []
        messageOpcode = nil
        return try Self.message(opcode, payload)
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketError)
        -> WebSocketMessage
    {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw .invalidUTF8("a text message is not valid UTF-8")
        }
        return .text(text)
    }
}
