import Foundation
import Observatory
import ObservatorySockets

/// A stand-in for an etcd member on a free loopback port, for the transport's
/// tests: it answers every request with the same raw HTTP response, or never
/// answers at all, and counts connections and requests.
///
/// Thread safety: the counters and the stop flag are in a `Locked` box (a pthread mutex ThreadSanitizer understands); its threads
/// poll with short timeouts and never wait with it held.
final class FakeMember: Sendable {
    /// What the member does with each request.
    enum Behavior: Sendable {
        /// Reads the request and never answers.
        case silent
        /// Answers with these bytes, a whole HTTP response.
        case respond([UInt8])
        /// Reads the request and closes the connection, as a member that died meanwhile.
        case closeAfterRequest
    }

    private struct State {
        var connections = 0
        var requests = 0
        var isStopped = false
        var descriptors: [Int32] = []
    }

    private let listener: ListeningSocket
    private let behavior: Behavior
    private let state = Locked(State())
    private let threads = DispatchGroup()

    /// The member's URL.
    var url: String { "http://127.0.0.1:\(listener.port)" }

    /// How many connections it accepted.
    var connections: Int { state.withLock { $0.connections } }

    /// How many requests it read whole.
    var requests: Int { state.withLock { $0.requests } }

    /// Starts listening and accepting.
    init(_ behavior: Behavior) throws {
        listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        self.behavior = behavior
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            threads.leave()
        }
    }

    /// A response with status 200 and `body`, framed by Content-Length.
    static func ok(_ body: String) -> Behavior {
        answer("200 OK", body)
    }

    /// A response with `status` (such as `503 Service Unavailable`) and the JSON `body`,
    /// framed by Content-Length.
    static func answer(_ status: String, _ body: String) -> Behavior {
        .respond(
            Array(
                "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    .utf8))
    }

    /// Stops accepting and answering, closes every connection, and waits for its threads.
    func stop() {
        state.withLock { $0.isStopped = true }
        threads.wait()
        listener.close()
        for descriptor in state.withLock({ $0.descriptors }) { StreamSocket(descriptor: descriptor).close() }
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func acceptLoop() {
        let waiter = StreamSocket(descriptor: listener.descriptor)
        while !isStopped {
            guard waiter.waitReadable(timeoutMilliseconds: 50), let descriptor = try? listener.accept() else {
                continue
            }
            state.withLock {
                $0.connections += 1
                $0.descriptors.append(descriptor)
            }
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(StreamSocket(descriptor: descriptor))
                threads.leave()
            }
        }
    }

    /// Reads requests (head, then a body of its Content-Length) and answers each.
    private func serve(_ socket: StreamSocket) {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !isStopped {
            while let length = Self.completeRequestLength(input) {
                input.removeFirst(length)
                state.withLock { $0.requests += 1 }
                switch behavior {
                case .silent: break
                case .respond(let bytes): try? socket.sendAll(bytes, timeoutMilliseconds: 1_000)
                case .closeAfterRequest:
                    socket.shutdown()
                    return
                }
            }
            guard socket.waitReadable(timeoutMilliseconds: 50) else { continue }
            let received = buffer.withUnsafeMutableBytes { try? socket.receive(into: $0) }
            switch received {
            case .bytes(let count): input += buffer[..<count]
            case .wouldBlock: continue
            case .closed, nil: return
            }
        }
    }

    /// The length of the first whole request in `input`, or nil while it is incomplete.
    private static func completeRequestLength(_ input: [UInt8]) -> Int? {
        let separator = Array("\r\n\r\n".utf8)
        guard let headEnd = input.indices.first(where: { input[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: input[..<headEnd], as: UTF8.self).lowercased()
        let lengthLine = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
        let length = lengthLine.flatMap {
            Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        let total = headEnd + separator.count + (length ?? 0)
        return input.count >= total ? total : nil
    }
}
