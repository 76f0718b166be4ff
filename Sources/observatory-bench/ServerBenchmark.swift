import Dispatch
import Foundation
import ObservatoryServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `observatory-bench server`: throughput, latency and memory of `observatoryd` over loopback.
///
/// - fan-out: one writer sets one key, N observers (1, 10, 100, 1000) receive the
///   events; deliveries per second and write→event latency (p50/p99).
/// - writes: 1 and 50 connections doing request/response sets; sets per second, p50/p99.
/// - memory: server RSS per idle connection at 1,000 and 10,000 connections.
///
/// The server runs as a separate `observatoryd` process (found next to this
/// executable, or given with `--daemon PATH`), so its memory is measured alone.
/// `--in-process` runs it in this process instead (memory is then skipped).
/// `--redis` measures `redis-server` (from `PATH`) the same way for comparison:
/// SUBSCRIBE/PUBLISH for fan-out, SET for writes. `--seconds S` sets each run's length.
enum ServerBenchmark {
    /// Runs the benchmark and prints a Markdown table.
    static func run(arguments: [String]) throws {
        let options = try Options(arguments)
        let limit = FileDescriptorLimit.raiseToMaximum()
        print("open-file limit: \(limit.after)")
        let dialect = options.redis ? Dialect.redis : Dialect.observatory
        let server = try BenchServer(options: options)
        defer { server.stop() }
        print("server: \(server.description), port \(server.port)\n")
        print("| scenario | result | p50 | p99 |")
        print("|---|---|---|---|")
        if !options.inProcess {
            // A fresh server per count, so memory freed by earlier runs does not hide growth.
            for count in [1_000, 10_000] {
                let fresh = try BenchServer(options: options)
                defer { fresh.stop() }
                print(try memory(fresh, dialect: dialect, connections: count))
            }
        }
        for observers in [1, 10, 100, 1_000] {
            print(try fanOut(port: server.port, dialect: dialect, observers: observers, seconds: options.seconds))
        }
        for connections in [1, 50] {
            print(try writes(port: server.port, dialect: dialect, connections: connections, seconds: options.seconds))
        }
        if options.inProcess {
            print("| memory | skipped: the server runs in this process | | |")
        }
    }

    // MARK: Scenarios

    /// One writer changes one key; every observer receives every event. The writer
    /// keeps at most 4 changes whose events have not reached every observer yet, so the
    /// latency measured is that of delivery, not of an ever-growing backlog.
    static func fanOut(port: Int, dialect: Dialect, observers count: Int, seconds: Double) throws -> String {
        let key = "bench.fanout.\(count)"
        let collector = EventCollector(port: port, dialect: dialect, key: key, observers: count)
        let reader = Thread { collector.run() }
        reader.start()
        try collector.waitUntilObserving()
        let writer = try Connection(port: port)
        defer { writer.close() }
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(seconds * 1e9)
        let window = 4
        var sent = 0
        var outstanding = 0
        while DispatchTime.now().uptimeNanoseconds < end {
            while outstanding < window && collector.deliveryCount >= (sent - window) * count {
                let stamp = DispatchTime.now().uptimeNanoseconds
                try writer.send(dialect.publish(key, stamp))
                outstanding += 1
                sent += 1
            }
            if outstanding > 0 {
                _ = try writer.readLine()
                outstanding -= 1
            } else {
                sched_yield()
            }
        }
        for _ in 0..<outstanding { _ = try writer.readLine() }
        let expected = sent * count
        collector.waitFor(deliveries: expected, timeout: 10)
        let elapsed = Double(collector.lastDelivery - start) / 1e9
        collector.stop()
        collector.waitUntilFinished()
        let latencies = collector.latencies
        return "| fan-out, 1 writer → \(count) observers | \(format(Double(latencies.count) / elapsed)) deliveries/s "
            + "(\(latencies.count)/\(expected) delivered, \(sent) changes) "
            + "| \(micros(percentile(latencies, 0.5))) | \(micros(percentile(latencies, 0.99))) |"
    }

    /// `connections` clients, each on its own thread, doing set → reply → set ….
    static func writes(port: Int, dialect: Dialect, connections count: Int, seconds: Double) throws -> String {
        let results = Mutex<[UInt64]>([])
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(seconds * 1e9)
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                var local: [UInt64] = []
                do {
                    let connection = try Connection(port: port)
                    defer { connection.close() }
                    var round: UInt64 = 0
                    while DispatchTime.now().uptimeNanoseconds < end {
                        let before = DispatchTime.now().uptimeNanoseconds
                        try connection.send(dialect.set("bench.write.\(index)", round))
                        _ = try connection.readLine()
                        local.append(DispatchTime.now().uptimeNanoseconds - before)
                        round += 1
                    }
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
                results.withLock { $0.append(contentsOf: local) }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let latencies = results.withLock { $0 }.sorted()
        let failed = failures.load(ordering: .relaxed)
        let note = failed > 0 ? ", \(failed) connections failed" : ""
        let plural = count == 1 ? "" : "s"
        return "| writes, \(count) connection\(plural) request/response | "
            + "\(format(Double(latencies.count) / elapsed)) sets/s\(note) "
            + "| \(micros(percentile(latencies, 0.5))) | \(micros(percentile(latencies, 0.99))) |"
    }

    /// Opens `count` idle connections (each answered one ping) and reports the
    /// server's resident memory growth per connection.
    static func memory(_ server: BenchServer, dialect: Dialect, connections count: Int) throws -> String {
        guard let pid = server.processIdentifier else { return "| memory | skipped: no server process | | |" }
        let before = try residentKilobytes(of: pid)
        var connections: [Connection] = []
        connections.reserveCapacity(count)
        for _ in 0..<count {
            let connection = try Connection(port: server.port)
            try connection.send(dialect.ping)
            connections.append(connection)
        }
        for connection in connections { _ = try connection.readLine() }
        let after = try residentKilobytes(of: pid)
        for connection in connections { connection.close() }
        let perConnection = Double(after - before) * 1_024 / Double(count)
        return "| memory, \(count) idle connections | \(format(perConnection)) bytes RSS per connection "
            + "(server RSS \(before / 1_024) → \(after / 1_024) MiB) | | |"
    }

    static func residentKilobytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let value = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw BenchError("cannot read VmRSS of process \(pid)") }
        return value
    }

    // MARK: Statistics

    static func percentile(_ sorted: [UInt64], _ fraction: Double) -> UInt64 {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    static func micros(_ nanoseconds: UInt64) -> String {
        String(format: "%.0f µs", Double(nanoseconds) / 1_000)
    }

    static func format(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}

extension ServerBenchmark {
    /// The command-line options of `observatory-bench server`.
    struct Options {
        var seconds = 2.0
        var daemonPath: String?
        var inProcess = false
        var redis = false

        init(_ arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--seconds":
                    guard let text = remaining.popFirst(), let value = Double(text), value > 0 else {
                        throw BenchError("--seconds needs a positive number")
                    }
                    seconds = value
                case "--daemon":
                    guard let path = remaining.popFirst() else { throw BenchError("--daemon needs a path") }
                    daemonPath = path
                case "--in-process":
                    inProcess = true
                case "--redis":
                    redis = true
                default:
                    throw BenchError(
                        "unknown argument \(argument); use --seconds S, --daemon PATH, --in-process or --redis")
                }
            }
        }
    }

    /// A benchmark failure with a message.
    struct BenchError: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// How to say observe, change, set and ping to the server under test.
    struct Dialect: Sendable {
        /// The request that starts observing `key`.
        let observe: @Sendable (String) -> String
        /// Whether `line` is the last line of the answer to `observe`.
        let endsObserveReply: @Sendable (ArraySlice<UInt8>) -> Bool
        /// The request that changes `key` to a number and gets a one-line reply.
        let publish: @Sendable (String, UInt64) -> String
        /// The request that stores a number under `key` and gets a one-line reply.
        let set: @Sendable (String, UInt64) -> String
        /// A request with a one-line reply.
        let ping: String
        /// The number an event line carries, if `line` is an event.
        let eventNumber: @Sendable (ArraySlice<UInt8>) -> UInt64?

        static let observatory = Dialect(
            observe: { #"{"op":"observe","key":"\#($0)"}"# },
            endsObserveReply: { _ in true },
            publish: { #"{"op":"set","key":"\#($0)","value":\#($1)}"# },
            set: { #"{"op":"set","key":"\#($0)","value":\#($1)}"# },
            ping: #"{"op":"ping"}"#,
            eventNumber: { line in
                guard let range = line.firstRange(of: Array(#""new":"#.utf8)) else { return nil }
                return leadingNumber(line[range.upperBound...])
            })

        /// Redis pub/sub: the payload of a message arrives as a line of digits.
        static let redis = Dialect(
            observe: { "SUBSCRIBE \($0)" },
            endsObserveReply: { $0.first == UInt8(ascii: ":") },
            publish: { "PUBLISH \($0) \($1)" },
            set: { "SET \($0) \($1)" },
            ping: "PING",
            eventNumber: { line in
                let digits = line.last == 13 ? line.dropLast() : line
                guard digits.count >= 6, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
                return leadingNumber(digits)
            })

        private static func leadingNumber(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            var value: UInt64 = 0
            for byte in bytes {
                guard byte >= 48 && byte <= 57 else { break }
                value = value &* 10 &+ UInt64(byte - 48)
            }
            return value
        }
    }

    /// A blocking line-oriented client connection; used by one thread.
    final class Connection {
        let socket: StreamSocket
        private var buffer: [UInt8] = []
        private var start = 0

        init(port: Int) throws {
            socket = try StreamSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 10_000)
        }

        func send(_ frame: String) throws {
            try socket.sendAll(Array((frame + "\r\n").utf8), timeoutMilliseconds: 10_000)
        }

        /// The next line (without LF); waits at most 10 s.
        func readLine() throws -> ArraySlice<UInt8> {
            while true {
                if let line = takeLine() { return line }
                guard socket.waitReadable(timeoutMilliseconds: 10_000) else { throw BenchError("no reply within 10 s") }
                guard try fill() else { throw BenchError("server closed the connection") }
            }
        }

        /// A complete buffered line, if there is one.
        func takeLine() -> ArraySlice<UInt8>? {
            guard let newline = buffer[start...].firstIndex(of: 10) else {
                if start > 0 {
                    buffer.removeSubrange(..<start)
                    start = 0
                }
                return nil
            }
            let line = buffer[start..<newline]
            start = newline + 1
            return line
        }

        /// Reads what is available; false when the server closed.
        func fill() throws -> Bool {
            // A stack buffer: no allocation or zeroing per read, which would dominate the client's cost.
            try withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 16) { chunk in
                switch try socket.receive(into: chunk) {
                case .bytes(let count):
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                    return true
                case .wouldBlock:
                    return true
                case .closed:
                    return false
                }
            }
        }

        func close() {
            socket.close()
        }
    }

    /// Reads events from many observer connections on one thread with `poll`, and
    /// records each event's latency from the timestamp the writer put in the value.
    /// The connections are made and used on that thread only.
    final class EventCollector: Sendable {
        private struct State {
            var latencies: [UInt64] = []
            var lastDelivery: UInt64 = 0
            var isObserving = false
            var failure: String?
            var stopped = false
            var finished = false
        }

        private let port: Int
        private let dialect: Dialect
        private let key: String
        private let observerCount: Int
        private let state = Mutex(State())

        init(port: Int, dialect: Dialect, key: String, observers: Int) {
            self.port = port
            self.dialect = dialect
            self.key = key
            observerCount = observers
        }

        var latencies: [UInt64] { state.withLock { $0.latencies }.sorted() }
        var lastDelivery: UInt64 { state.withLock { $0.lastDelivery } }
        var deliveryCount: Int { state.withLock { $0.latencies.count } }

        func stop() {
            state.withLock { $0.stopped = true }
        }

        /// Waits (at most 60 s) until every observer has its reply.
        func waitUntilObserving() throws {
            try waitUntil(timeout: 60) { $0.isObserving || $0.failure != nil }
            if let failure = state.withLock({ $0.failure }) { throw BenchError(failure) }
        }

        /// Waits until `deliveries` events arrived or `timeout` seconds passed.
        func waitFor(deliveries: Int, timeout: Double) {
            try? waitUntil(timeout: timeout) { $0.latencies.count >= deliveries }
        }

        func waitUntilFinished() {
            try? waitUntil(timeout: 10) { $0.finished }
        }

        private func waitUntil(timeout: Double, _ condition: (State) -> Bool) throws {
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
            while !state.withLock({ condition($0) }) {
                guard DispatchTime.now().uptimeNanoseconds < deadline else { throw BenchError("timed out") }
                usleep(1_000)
            }
        }

        func run() {
            defer { state.withLock { $0.finished = true } }
            var list: [Connection] = []
            do {
                for _ in 0..<observerCount {
                    let connection = try Connection(port: port)
                    try connection.send(dialect.observe(key))
                    list.append(connection)
                }
                for connection in list {
                    while !dialect.endsObserveReply(try connection.readLine()) {}
                }
            } catch {
                state.withLock { $0.failure = "observers: \(error)" }
                return
            }
            state.withLock { $0.isObserving = true }
            collect(from: list)
            for connection in list { connection.close() }
        }

        private func collect(from list: [Connection]) {
            var descriptors = list.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
            var batch: [UInt64] = []
            while !state.withLock({ $0.stopped }) {
                guard poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else { continue }
                for index in descriptors.indices where descriptors[index].revents != 0 {
                    descriptors[index].revents = 0
                    guard (try? list[index].fill()) == true else { continue }
                    while let line = list[index].takeLine() {
                        if let stamp = dialect.eventNumber(line) {
                            batch.append(DispatchTime.now().uptimeNanoseconds &- stamp)
                        }
                    }
                }
                let now = DispatchTime.now().uptimeNanoseconds
                let delivered = batch
                batch.removeAll(keepingCapacity: true)
                state.withLock {
                    $0.latencies.append(contentsOf: delivered)
                    if !delivered.isEmpty { $0.lastDelivery = now }
                }
            }
        }
    }

    /// The server under test: an `observatoryd` or `redis-server` process, or an in-process `Server`.
    final class BenchServer: CustomStringConvertible {
        let port: Int
        let processIdentifier: Int32?
        let description: String
        private let process: Process?
        private let server: Server?

        init(options: Options) throws {
            if options.inProcess {
                var configuration = ServerConfiguration()
                configuration.port = 0
                configuration.fsync = .none
                let server = try Server(configuration: configuration)
                try server.start()
                self.server = server
                process = nil
                processIdentifier = nil
                port = server.port
                description = "in-process Server"
                return
            }
            let process = Process()
            let errors = Pipe()
            process.standardError = errors
            server = nil
            if options.redis {
                port = try Self.freePort()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = [
                    "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--maxclients", "20000",
                ]
                process.standardOutput = Pipe()
                try process.run()
                try Self.waitForListener(port: port)
                description = "redis-server process \(process.processIdentifier)"
            } else {
                let path = try options.daemonPath ?? Self.daemonNextToThisExecutable()
                process.executableURL = URL(fileURLWithPath: path)
                process.arguments = ["--port", "0", "--log-level", "info"]
                try process.run()
                port = try Self.readPort(from: errors, process: process)
                description = "observatoryd process \(process.processIdentifier) (\(path))"
            }
            self.process = process
            processIdentifier = process.processIdentifier
        }

        private static func readPort(from errors: Pipe, process: Process) throws -> Int {
            let reader = StreamSocket(descriptor: errors.fileHandleForReading.fileDescriptor)
            let marker = "listening on 127.0.0.1:"
            var text = ""
            while !text.contains(marker) || !text.hasSuffix("\n") {
                guard reader.waitReadable(timeoutMilliseconds: 10_000) else {
                    process.terminate()
                    throw BenchError("observatoryd did not start: \(text)")
                }
                let data = errors.fileHandleForReading.availableData
                guard !data.isEmpty else { throw BenchError("observatoryd exited: \(text)") }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let digits = text.components(separatedBy: marker).last?.prefix(while: { $0.isNumber }),
                let port = Int(digits)
            else { throw BenchError("cannot read the port from: \(text)") }
            return port
        }

        /// A port that was free a moment ago (for servers that cannot bind port 0 and report it).
        private static func freePort() throws -> Int {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.fsync = .none
            let probe = try Server(configuration: configuration)
            try probe.start()
            let port = probe.port
            probe.stop()
            return port
        }

        private static func waitForListener(port: Int) throws {
            for _ in 0..<100 {
                if let socket = try? StreamSocket.connect(host: "127.0.0.1", port: port) {
                    socket.close()
                    return
                }
                usleep(50_000)
            }
            throw BenchError("nothing listens on port \(port) after 5 s")
        }

        private static func daemonNextToThisExecutable() throws -> String {
            let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
                .deletingLastPathComponent()
            let candidate = directory.appendingPathComponent("observatoryd").path
            guard FileManager.default.isExecutableFile(atPath: candidate) else {
                throw BenchError(
                    "no observatoryd next to this executable; build it, or pass --daemon PATH or --in-process")
            }
            return candidate
        }

        func stop() {
            server?.stop()
            if let process, process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
        }
    }
}
