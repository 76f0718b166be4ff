/// One WebSocket connection as a pure state machine: bytes in, actions out.
///
/// It answers pings with pongs, runs the closing handshake (RFC 6455 §7) and turns
/// every protocol failure into a close frame with the right code, so that the socket
/// shell around it only writes what it is told to and closes when it is told to.
///
/// ```swift
/// var connection = WebSocketConnection(role: .server, maxMessageBytes: maxFrameBytes)
/// for action in connection.receive(readBytes) {
///     switch action {
///     case .deliver(.text(let line)): session.handle(line)
///     case .deliver(.binary): perform(connection.close(.unsupportedData, reason: "text only"))
///     case .deliver: break
///     case .send(let bytes): socket.write(bytes)
///     case .closeConnection: socket.closeAfterWrites()
///     }
/// }
/// if let frame = connection.sendText(reply) { socket.write(frame) }
/// ```
///
/// States: ``State/open`` until either side sends a close frame; ``State/closing`` after
/// this side sent one and waits for the answer (data that arrives then is dropped);
/// ``State/closed`` once the handshake is complete or the connection failed. The shell
/// should close the socket itself if a closing connection gets no answer in time.
public struct WebSocketConnection: Sendable {
    /// Where the closing handshake stands.
    public enum State: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// This side sent a close frame and waits for the peer's.
        case closing
        /// Nothing more is sent or delivered.
        case closed
    }

    /// What the shell must do, in order.
    public enum Action: Sendable, Hashable {
        /// Hand a message to the application: text, binary (to accept or refuse with
        /// 1003) or a pong (a sign of life).
        case deliver(WebSocketMessage)
        /// Write these bytes (a pong or a close frame).
        case send([UInt8])
        /// Close the socket once the bytes before it are written.
        case closeConnection
    }

    /// Which end this is: it decides which frames must be masked.
    public let role: WebSocketRole
    /// Where the closing handshake stands.
    public private(set) var state = State.open
    /// The code the connection closed with: sent by this side, or received from the
    /// peer; `nil` while open or when the peer's close carried no code.
    public private(set) var closeCode: WebSocketCloseCode?

    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler

    /// Creates an open connection whose messages (and so frames) are at most `maxMessageBytes`.
    public init(role: WebSocketRole = .server, maxMessageBytes: Int = WebSocketMessageAssembler.defaultMaxMessageBytes)
    {
        self.role = role
        decoder = WebSocketFrameDecoder(role: role, maxPayloadBytes: maxMessageBytes)
        assembler = WebSocketMessageAssembler(maxMessageBytes: maxMessageBytes)
    }

    /// The bytes of memory held for unfinished frames and messages, for memory accounting.
    public var retainedByteCount: Int {
        decoder.retainedByteCount + assembler.retainedByteCount
    }

    /// Takes received bytes and says what to do about them.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        guard state != .closed else { return [] }
        decoder.append(bytes)
        var actions: [Action] = []
        do {
            while state != .closed, let frame = try decoder.next() {
                guard let message = try assembler.receive(frame) else { continue }
                handle(message, into: &actions)
            }
        } catch {
            fail(error, into: &actions)
        }
        return actions
    }

    /// The peer closed the socket without a closing handshake (or after it).
    public mutating func inputEnded() -> [Action] {
        guard state != .closed else { return [] }
        state = .closed
        return [.closeConnection]
    }

    /// A text frame to write, or `nil` once a close frame was sent or received.
    public func sendText(_ text: String) -> [UInt8]? {
        guard state == .open else { return nil }
        return WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .text, maskingKey: nextMaskingKey(), payload: Array(text.utf8)))
    }

    /// A ping frame to write (at most 125 bytes of payload are sent), or `nil` when not open.
    public func sendPing(_ payload: [UInt8] = []) -> [UInt8]? {
        guard state == .open else { return nil }
        return WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .ping, maskingKey: nextMaskingKey(), payload: Array(payload.prefix(125))))
    }

    /// Starts the closing handshake: the close frame to write; nothing when a close
    /// was already sent or the connection is closed.
    public mutating func close(_ code: WebSocketCloseCode, reason: String = "") -> [Action] {
        guard state == .open else { return [] }
        state = .closing
        closeCode = code
        return [.send(closeFrame(WebSocketClosePayload(code: code, reason: reason)))]
    }

    private mutating func handle(_ message: WebSocketMessage, into actions: inout [Action]) {
        switch message {
        case .ping(let payload):
            guard state == .open else { return }
            actions.append(
                .send(
                    WebSocketFrameEncoder.encode(
                        WebSocketFrame(opcode: .pong, maskingKey: nextMaskingKey(), payload: payload))))
        case .pong:
            actions.append(.deliver(message))
        case .text, .binary:
            // After sending a close this side is done with data: drop it.
            guard state == .open else { return }
            actions.append(.deliver(message))
        case .close(let payload):
            if state == .open {
                // Echo the peer's code, as RFC 6455 §5.5.1 suggests; none if it sent none.
                closeCode = payload?.code
                actions.append(.send(closeFrame(payload.map { WebSocketClosePayload(code: $0.code) })))
            }
            state = .closed
            actions.append(.closeConnection)
        }
    }

    private mutating func fail(_ error: WebSocketError, into actions: inout [Action]) {
        if state == .open {
            closeCode = error.closeCode
            actions.append(.send(closeFrame(WebSocketClosePayload(code: error.closeCode, reason: error.message))))
        }
        state = .closed
        actions.append(.closeConnection)
    }

    private func closeFrame(_ payload: WebSocketClosePayload?) -> [UInt8] {
        WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .close, maskingKey: nextMaskingKey(), payload: payload?.encoded() ?? []))
    }

    /// A fresh random key for a client's frame; none for a server's.
    private func nextMaskingKey() -> UInt32? {
        guard role == .client else { return nil }
        var generator = SystemRandomNumberGenerator()
        return UInt32.random(in: .min ... .max, using: &generator)
    }
}
