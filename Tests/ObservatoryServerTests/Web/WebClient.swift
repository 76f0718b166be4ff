import Foundation
import ObservatoryHTTP
import ObservatoryTestSupport
import ObservatoryWire

@testable import ObservatorySockets

/// A test client for the web face over a real loopback socket: raw HTTP/1.1
/// requests out, responses decoded with `HTTPResponseDecoder`, and after an
/// upgrade WebSocket frames both ways (masked, as a client must).
final class WebClient {
    /// One whole response.
    struct Response {
        var head: HTTPResponseHead
        var body: [UInt8]
        var status: Int { head.status.code }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    let socket: StreamSocket
    private var decoder = HTTPResponseDecoder()
    /// Bytes after an upgrade, for the WebSocket decoder.
    private var received: [UInt8] = []
    private var frames = WebSocketFrameDecoder(role: .client, maxPayloadBytes: 1 << 24)
    private var isClosed = false

    init(port: Int) throws {
        socket = try StreamSocket.connect(host: "127.0.0.1", port: port)
    }

    deinit { close() }

    /// Closes the socket once.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }

    /// Sends raw text.
    func send(_ text: String) throws {
        try socket.sendAll(Array(text.utf8))
    }

    /// Sends a request with a body and `headers`, HTTP/1.1.
    func request(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        decoder.requestSent(method: method)
        try send(text)
        guard let response = try nextResponse() else { throw TestFailure(description: "the server closed") }
        return response
    }

    /// The next whole response, or `nil` when the server closed first.
    func nextResponse(timeout: Double = LineClient.patience) throws -> Response? {
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let part = try decoder.next() {
                switch part {
                case .head(let decoded): head = decoded
                case .body(let bytes): body += bytes
                case .end:
                    guard let head else { continue }
                    return Response(head: head, body: body)
                }
            }
            guard let chunk = try read(until: deadline) else {
                decoder.finish()
                if let part = try decoder.next(), part == .end, let head { return Response(head: head, body: body) }
                return nil
            }
            decoder.append(chunk)
        }
    }

    /// Reads the head of a streamed response (an event stream) and returns it.
    func streamHead(timeout: Double = LineClient.patience) throws -> HTTPResponseHead {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if case .head(let head)? = try decoder.next() { return head }
            guard let chunk = try read(until: deadline) else { throw TestFailure(description: "closed") }
            decoder.append(chunk)
        }
    }

    /// The streamed body's text up to and including `marker`'s next occurrence.
    func streamText(until marker: String, timeout: Double = LineClient.patience) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while !text.contains(marker) {
            if let part = try decoder.next() {
                if case .body(let bytes) = part { text += String(decoding: bytes, as: UTF8.self) }
                continue
            }
            guard let chunk = try read(until: deadline) else { throw TestFailure(description: "closed: \(text)") }
            decoder.append(chunk)
        }
        return text
    }

    // MARK: WebSocket

    /// Upgrades at `target`; throws unless the server accepts.
    func upgrade(_ target: String = "/ws") throws {
        let key = WebSocketHandshake.makeKey()
        try send(
            "GET \(target) HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: \(key)\r\n\r\n")
        let deadline = Date().addingTimeInterval(LineClient.patience)
        while true {
            if case .head(let head)? = try decoder.next() {
                guard WebSocketHandshake.accepts(head, key: key) else {
                    throw TestFailure(description: "upgrade refused: \(head.status)")
                }
                received = decoder.takeUpgradedBytes()
                return
            }
            guard let chunk = try read(until: deadline) else { throw TestFailure(description: "closed") }
            decoder.append(chunk)
        }
    }

    /// Sends a masked frame.
    func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], masked: Bool = true) throws {
        let frame = WebSocketFrame(opcode: opcode, maskingKey: masked ? 0x1234_5678 : nil, payload: payload)
        try socket.sendAll(WebSocketFrameEncoder.encode(frame))
    }

    /// Sends a masked text message.
    func sendText(_ text: String) throws {
        try sendFrame(.text, Array(text.utf8))
    }

    /// The next frame from the server, or `nil` once it closed the socket.
    func nextFrame(timeout: Double = LineClient.patience) throws -> WebSocketFrame? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            frames.append(received)
            received = []
            if let frame = try frames.next() { return frame }
            guard let chunk = try read(until: deadline) else { return nil }
            received = chunk
        }
    }

    /// The next text message, parsed; throws on anything else.
    func nextMessage(timeout: Double = LineClient.patience) throws -> JSONValue {
        guard let frame = try nextFrame(timeout: timeout), frame.opcode == .text else {
            throw TestFailure(description: "expected a text message")
        }
        return try JSONValue.parse(frame.payload)
    }

    /// The close code of the server's next frame, which must be a close.
    func closeCode(timeout: Double = LineClient.patience) throws -> UInt16? {
        while let frame = try nextFrame(timeout: timeout) {
            guard frame.opcode == .close else { continue }
            guard frame.payload.count >= 2 else { return nil }
            return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
        }
        return nil
    }

    private func read(until deadline: Date) throws -> [UInt8]? {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0, socket.waitReadable(timeoutMilliseconds: Int32(remaining * 1_000) + 1) else {
            throw TestFailure(description: "no answer from the server in time")
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        switch try chunk.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
        case .bytes(let count): return Array(chunk[..<count])
        case .closed: return nil
        case .wouldBlock: return []
        }
    }
}
