import Foundation
import ObservatorySockets
import ObservatoryWire

/// A test client over a real loopback socket that speaks the line protocol as raw
/// text: sends lines, reads lines with a deadline. For tests of the server and
/// the daemon that must see exactly what goes over the wire.
public final class LineClient {
    /// How long a read waits for what should come. Generous, because it bounds a
    /// hang rather than measuring speed: a loaded CI machine can stall for seconds.
    public static let patience: Double = 20

    /// The client's socket.
    public let socket: StreamSocket
    private var buffer: [UInt8] = []
    private var isAtEnd = false
    private var isClosed = false

    /// Connects to the loopback server; see `StreamSocket.connect` for `receiveBufferBytes`.
    public init(port: Int, receiveBufferBytes: Int32? = nil) throws {
        socket = try StreamSocket.connect(host: "127.0.0.1", port: port, receiveBufferBytes: receiveBufferBytes)
    }

    deinit {
        close()
    }

    /// Closes the socket once; a second close could hit a descriptor reused by another test.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }

    /// Sends each frame followed by LF, in one write.
    public func send(_ frames: String...) throws {
        try socket.sendAll(Array(frames.map { $0 + "\n" }.joined().utf8))
    }

    /// Sends raw bytes.
    public func sendBytes(_ bytes: [UInt8]) throws {
        try socket.sendAll(bytes)
    }

    /// The next line, or `nil` once the server closed; throws after `timeout` seconds of silence.
    public func nextLine(timeout: Double = LineClient.patience) throws -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            if isAtEnd { return nil }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, socket.waitReadable(timeoutMilliseconds: Int32(remaining * 1_000) + 1) else {
                throw TestFailure(description: "no line from the server within \(timeout) s")
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let received = try chunk.withUnsafeMutableBytes { try socket.receive(into: $0) }
        switch received {
        case .bytes(let count): buffer.append(contentsOf: chunk[..<count])
        case .closed: isAtEnd = true
        case .wouldBlock: break
        }
    }

    /// The next message, parsed; throws if the server closed instead.
    public func next(timeout: Double = LineClient.patience) throws -> JSONValue {
        guard let line = try nextLine(timeout: timeout) else {
            throw TestFailure(description: "the server closed the connection")
        }
        return try JSONValue.parse(line)
    }

    /// Sends one request and returns the next message (use when no events are expected).
    public func request(_ frame: String) throws -> JSONValue {
        try send(frame)
        return try next()
    }

    /// Reads messages until the server closes; throws if it does not within `timeout`.
    public func readUntilClosed(timeout: Double = LineClient.patience) throws -> [JSONValue] {
        var messages: [JSONValue] = []
        while let line = try nextLine(timeout: timeout) {
            messages.append(try JSONValue.parse(line))
        }
        return messages
    }
}
