import ObservatoryEpoll
import ObservatoryServer
import ObservatorySockets

#if canImport(Glibc)
    import Glibc
#endif

/// The client side of the server benchmark: many connections to one server, driven
/// by one thread from one `Poller` (epoll set), so that on a two-core machine the
/// server gets the other core. The poller's timer paces writers to the microsecond.
///
/// It reads each ready socket into one large buffer, cuts frames with the dialect's
/// minimal scanner, hands them to the workload, and sends what the workload queued
/// with one `send` per connection per loop turn. This is what lets it drive a server
/// harder than the server can serve, where a thread per connection measured itself.
final class LoadDriver {
    let dialect: WireDialect
    private(set) var connections: [LoadConnection] = []
    private let poller: Poller
    /// The one read buffer: a connection's carried-over bytes, then what `recv` returned.
    private let input: UnsafeMutableRawBufferPointer
    /// Connections whose output went from empty to queued since the last flush.
    private var queued: [Int] = []

    init(dialect: WireDialect, inputBytes: Int = 256 << 10) throws {
        self.dialect = dialect
        // 1,024: a wait hands back the readiness of a whole benchmark's connections at once.
        poller = try Poller(batch: 1_024)
        input = .allocate(byteCount: inputBytes, alignment: 16)
    }

    deinit {
        for connection in connections { connection.socket.close() }
        input.deallocate()
    }

    /// Opens `count` more connections to `127.0.0.1:port`, upgraded if the dialect
    /// upgrades (at most 30 s for all); returns their indices.
    func connect(port: Int, count: Int) throws -> Range<Int> {
        let first = connections.count
        connections.reserveCapacity(first + count)
        for index in first..<(first + count) {
            let socket = try StreamSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 10_000)
            connections.append(LoadConnection(socket: socket))
            try poller.add(socket.descriptor, token: index, interest: .readable)
        }
        let range = first..<(first + count)
        if let upgrade = dialect.upgradeRequest(port: port) {
            for index in range { send(on: index) { $0.append(contentsOf: upgrade) } }
            var wait = ReplyWait(replies: count)
            guard try run(&wait, until: MonotonicClock.now() + MonotonicClock.nanoseconds(30)) else {
                throw BenchError("the upgrades did not all complete within 30 s")
            }
            guard wait.failures == 0 else { throw BenchError("\(wait.failures) upgrades were refused") }
        }
        return range
    }

    /// Queues the request that `encode` appends on connection `index`; it goes out
    /// with the next flush.
    func send(on index: Int, _ encode: (inout [UInt8]) -> Void) {
        let connection = connections[index]
        if !connection.hasOutput { queued.append(index) }
        encode(&connection.output)
    }

    /// Ends the next wait at `deadline` (monotonic nanoseconds), for paced sending.
    func wakeUp(at deadline: UInt64) {
        poller.wake(atMonotonicNanoseconds: deadline)
    }

    /// Runs `workload` until it is complete or `deadline` (monotonic nanoseconds) passes.
    ///
    /// - Returns: whether the workload completed.
    func run<W: Workload>(_ workload: inout W, until deadline: UInt64) throws -> Bool {
        // Bounded by `deadline`: every turn waits at most until then and returns once it has passed.
        while true {
            let now = MonotonicClock.now()
            let complete = workload.advance(at: now, driver: self)
            try flushQueued()
            if complete { return true }
            guard now < deadline else { return false }
            let timeout = Int32(min(100, (deadline - now + 999_999) / 1_000_000))
            // The poller's callback cannot throw: the first failure stops this turn and is thrown after it.
            var failure: (any Error)?
            try poller.wait(timeoutMilliseconds: timeout) { readiness in
                guard failure == nil, readiness.token != Poller.wakeToken else { return }
                do {
                    if readiness.readable { try receive(on: readiness.token, into: &workload) }
                    if readiness.writable { try flush(readiness.token) }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }

    /// Reads what connection `index` has (a bounded number of buffers) and hands every complete frame to `workload`.
    private func receive<W: Workload>(on index: Int, into workload: inout W) throws {
        let connection = connections[index]
        for _ in 0..<16 {
            let carried = connection.carry.count
            guard carried < input.count / 2 else { throw BenchError("a frame larger than the read buffer") }
            connection.carry.withUnsafeBytes { carry in
                if let source = carry.baseAddress { input.baseAddress?.copyMemory(from: source, byteCount: carried) }
            }
            let space = UnsafeMutableRawBufferPointer(rebasing: input[carried...])
            switch try connection.socket.receive(into: space) {
            case .wouldBlock:
                return
            case .closed:
                throw BenchError("\(dialect.serverName) closed a connection")
            case .bytes(let count):
                try deliver(upTo: carried + count, from: index, to: &workload)
                if count < space.count { return }
            }
        }
    }

    /// Scans `input[..<end]` into frames for `workload`, and carries an incomplete last frame over.
    private func deliver<W: Workload>(upTo end: Int, from index: Int, to workload: inout W) throws {
        let now = MonotonicClock.now()
        let bytes = UnsafeRawBufferPointer(input)
        var position = 0
        while let scanned = try dialect.scan(bytes, from: position, to: end) {
            workload.received(scanned.frame, on: index, at: now, driver: self)
            position = scanned.end
        }
        let connection = connections[index]
        connection.carry.removeAll(keepingCapacity: true)
        connection.carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<end]))
    }

    private func flushQueued() throws {
        for index in queued { try flush(index) }
        queued.removeAll(keepingCapacity: true)
    }

    /// Sends connection `index`'s output, and watches for room to write only while some is left.
    private func flush(_ index: Int) throws {
        let connection = connections[index]
        let complete = try connection.flush()
        guard complete == connection.watchingWritable else { return }
        connection.watchingWritable = !complete
        let interest: Poller.Interest = complete ? .readable : [.readable, .writable]
        try poller.modify(connection.socket.descriptor, token: index, interest: interest)
    }
}
