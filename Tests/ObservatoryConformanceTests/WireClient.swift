import Foundation
import Glibc

/// A deliberately independent protocol client: a raw TCP socket whose reads and
/// writes are bounded by `poll` timeouts, and JSON through Foundation's `JSONSerialization`
/// only, as a client written in another language against docs/protocol.md would be.
///
/// Not thread-safe: each test (or each thread of a test) owns its clients.
final class WireClient {
    /// Why talking to the server failed; a test that gets one fails with its message.
    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case timedOut(waitingFor: String)
        case closed(waitingFor: String)
        case notAnObject(String)

        var description: String {
            switch self {
            case .system(let call, let number): "\(call) failed: \(String(cString: strerror(number)))"
            case .timedOut(let what): "timed out waiting for \(what)"
            case .closed(let what): "the server closed the connection while waiting for \(what)"
            case .notAnObject(let line): "the server sent a line that is not a JSON object: \(line)"
            }
        }
    }

    /// How long a read waits unless told otherwise: long enough for a loaded
    /// machine, short enough that a missing reply fails the test quickly.
    static let defaultTimeout = Duration.seconds(20)

    private let descriptor: Int32
    private var received: [UInt8] = []
    private var pending: [Frame] = []
    private var isOpen = true
    private var peerClosed = false
    /// Whether the server ended the connection with a reset (unsent data lost)
    /// rather than an orderly close.
    private(set) var wasReset = false
    private var nextID = 1

    /// Connects to 127.0.0.1 on `port`; `receiveBufferBytes` shrinks the kernel's
    /// receive buffer (before connecting) for clients that play slow consumers.
    init(port: Int, receiveBufferBytes: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBufferBytes {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let number = errno
            Glibc.close(descriptor)
            throw Failure.system("connect", number)
        }
    }

    deinit {
        close()
    }

    /// Closes the socket (idempotent).
    func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(descriptor)
    }

    // MARK: Sending

    /// Sends the bytes exactly as given, in one write where the kernel allows.
    ///
    /// While the kernel cannot take more, whatever the server sends is read into
    /// the buffer: a server that stops reading until its replies are taken (flow
    /// control) must not deadlock the test.
    func send(bytes: [UInt8], timeout: Duration = defaultTimeout) throws {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw Failure.system("send", errno)
            }
            try waitToSend(until: deadline)
        }
    }

    private func waitToSend(until deadline: ContinuousClock.Instant) throws {
        let remaining = deadline - .now
        guard remaining > .zero else { throw Failure.timedOut(waitingFor: "the server to take more bytes") }
        var request = pollfd(fd: descriptor, events: Int16(POLLOUT) | (peerClosed ? 0 : Int16(POLLIN)), revents: 0)
        let ready = poll(&request, 1, Self.milliseconds(remaining))
        if ready < 0, errno != EINTR { throw Failure.system("poll", errno) }
        if !peerClosed, request.revents & Int16(POLLIN) != 0 {
            try receiveAvailable()
        }
    }

    /// Sends text exactly as given (no newline added).
    func send(raw text: String, timeout: Duration = defaultTimeout) throws {
        try send(bytes: Array(text.utf8), timeout: timeout)
    }

    /// Sends one request object as a JSON line.
    func send(_ request: [String: Any]) throws {
        try send(bytes: Self.encode(request) + [UInt8(ascii: "\n")])
    }

    /// Sends a request with a fresh integer id and returns its reply (events that
    /// arrive meanwhile are kept for `nextEvent`).
    func call(_ request: [String: Any], timeout: Duration = defaultTimeout) throws -> Frame {
        let id = nextID
        nextID += 1
        var withID = request
        withID["id"] = id
        try send(withID)
        return try reply(to: id, timeout: timeout)
    }

    /// Sends a raw request line whose text contains `"id":ID` and returns the reply
    /// to that id: for values that must reach the server exactly as written.
    func call(rawLine text: String, id: Int, timeout: Duration = defaultTimeout) throws -> Frame {
        try send(raw: text + "\n")
        return try reply(to: id, timeout: timeout)
    }

    /// Sends `{"id":N,` + `fields` + `}` with a fresh integer id and returns the
    /// reply: the fields reach the server exactly as written (numbers, escapes).
    func call(fields: String, timeout: Duration = defaultTimeout) throws -> Frame {
        let id = nextID
        nextID += 1
        return try call(rawLine: "{\"id\":\(id),\(fields)}", id: id, timeout: timeout)
    }

    // MARK: Receiving

    /// The next frame, reply or event, in arrival order.
    func nextFrame(timeout: Duration = defaultTimeout) throws -> Frame {
        if !pending.isEmpty { return pending.removeFirst() }
        return try readFrame(until: .now + timeout, waitingFor: "a frame")
    }

    /// The reply whose id equals `id` (JSON-equal); events and other frames before
    /// it are kept for later reads.
    func reply(to id: Any, timeout: Duration = defaultTimeout) throws -> Frame {
        let wanted = JSONTree(id)
        if let index = pending.firstIndex(where: { !$0.isEvent && $0.id == wanted }) {
            return pending.remove(at: index)
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let frame = try readFrame(until: deadline, waitingFor: "the reply to id \(wanted)")
            if !frame.isEvent, frame.id == wanted { return frame }
            pending.append(frame)
        }
    }

    /// The next event (`"event"` present), skipping nothing: replies read meanwhile
    /// are kept.
    func nextEvent(timeout: Duration = defaultTimeout) throws -> Frame {
        if let index = pending.firstIndex(where: \.isEvent) { return pending.remove(at: index) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let frame = try readFrame(until: deadline, waitingFor: "an event")
            if frame.isEvent { return frame }
            pending.append(frame)
        }
    }

    /// Every frame already received or arriving within `window` (or before the
    /// server closes the connection), in order.
    func frames(arrivingWithin window: Duration) throws -> [Frame] {
        var frames = pending
        pending.removeAll()
        let deadline = ContinuousClock.now + window
        while true {
            do {
                frames.append(try readFrame(until: deadline, waitingFor: "frames"))
            } catch Failure.timedOut {
                return frames
            } catch Failure.closed {
                return frames
            }
        }
    }

    /// Events up to and including the first that `isLast` accepts, plus any that
    /// arrive within a short grace after it: for checking which events a series
    /// of changes produced, ended by a sentinel change.
    func events(through isLast: (Frame) -> Bool, timeout: Duration = defaultTimeout) throws -> [Frame] {
        var events: [Frame] = []
        while true {
            let event = try nextEvent(timeout: timeout)
            events.append(event)
            if isLast(event) { break }
        }
        return events + (try self.events(arrivingWithin: .milliseconds(100)))
    }

    /// Every event already received or arriving within `window` (for checking
    /// that none arrive); replies read meanwhile are kept.
    func events(arrivingWithin window: Duration) throws -> [Frame] {
        let frames = try frames(arrivingWithin: window)
        pending = frames.filter { !$0.isEvent }
        return frames.filter(\.isEvent)
    }

    /// Reads until the server closes the connection and returns the frames that
    /// came before the close; throws `timedOut` if it stays open.
    func framesUntilClosed(timeout: Duration = defaultTimeout) throws -> [Frame] {
        var frames = pending
        pending.removeAll()
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                frames.append(try readFrame(until: deadline, waitingFor: "the server to close"))
            } catch Failure.closed {
                return frames
            }
        }
    }

    /// Whether the server closed the connection within `timeout` (frames before the
    /// close are discarded).
    func isClosedByServer(within timeout: Duration) -> Bool {
        do {
            _ = try framesUntilClosed(timeout: timeout)
            return true
        } catch {
            return false
        }
    }

    /// Whether bytes from the server (or its close) are waiting to be read within
    /// `timeout`; reads nothing.
    func waitUntilReadable(timeout: Duration = defaultTimeout) -> Bool {
        guard pending.isEmpty, !received.contains(UInt8(ascii: "\n")) else { return true }
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, Self.milliseconds(timeout)) > 0
    }

    private func readFrame(until deadline: ContinuousClock.Instant, waitingFor what: String) throws -> Frame {
        while true {
            if let line = takeLine() {
                if line.isEmpty { continue }
                guard let frame = Frame(line: line) else {
                    throw Failure.notAnObject(String(decoding: line, as: UTF8.self))
                }
                return frame
            }
            try fill(until: deadline, waitingFor: what)
        }
    }

    private func takeLine() -> [UInt8]? {
        guard let newline = received.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = Array(received[..<newline])
        received.removeSubrange(...newline)
        return line
    }

    private func fill(until deadline: ContinuousClock.Instant, waitingFor what: String) throws {
        guard isOpen, !peerClosed else { throw Failure.closed(waitingFor: what) }
        let remaining = deadline - .now
        guard remaining > .zero else { throw Failure.timedOut(waitingFor: what) }
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, Self.milliseconds(remaining))
        if ready < 0 {
            if errno == EINTR { return }
            throw Failure.system("poll", errno)
        }
        guard ready > 0 else { throw Failure.timedOut(waitingFor: what) }
        try receiveAvailable()
        if peerClosed { throw Failure.closed(waitingFor: what) }
    }

    /// Appends what one `recv` returns; notes the server's close (EOF or reset).
    private func receiveAvailable() throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return }
            guard errno == ECONNRESET else { throw Failure.system("recv", errno) }
            peerClosed = true
            wasReset = true
            return
        }
        if count == 0 {
            peerClosed = true
            return
        }
        received.append(contentsOf: buffer[..<count])
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(
            clamping: duration.components.seconds * 1_000
                + duration.components.attoseconds / 1_000_000_000_000_000 + 1)
    }

    // MARK: JSON

    /// The compact JSON text of `object` (Foundation's writer).
    /// The most bytes the kernel lets one TCP sender buffer (the last field of
    /// `tcp_wmem`; 4 MiB if unreadable), for floods that must outgrow every buffer
    /// in front of a client that does not read.
    static func kernelSendBufferCeiling() -> Int {
        let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)
        let last = text?.split(whereSeparator: \.isWhitespace).last
        return last.flatMap { Int($0) } ?? 4 << 20
    }

    static func encode(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]))
    }
}
