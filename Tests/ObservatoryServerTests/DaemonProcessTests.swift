import Foundation
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Runs the built `observatoryd` binary as a separate process.
@Suite struct DaemonProcessTests {
    /// The `observatoryd` built next to this test bundle.
    private func daemonURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("observatoryd")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw TestFailure(description: "observatoryd was not built next to the tests (run `swift build` first)")
    }

    private func launch(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try daemonURL()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["OBSERVATORY_CONFIG", "OBSERVATORY_HOST", "OBSERVATORY_PORT", "OBSERVATORY_LOG_LEVEL"] {
            environment[name] = nil
        }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Launches the daemon on a free port and waits for its startup line; returns
    /// the process, its standard error, the port it listens on, and the log so far.
    private func launchListening(_ arguments: [String]) throws -> (Process, Pipe, port: Int, log: String) {
        let (process, _, errors) = try launch(["--port", "0"] + arguments)
        do {
            let log = try readUntil("listening on 127.0.0.1:", in: errors)
            let portDigits = log.split(separator: "listening on 127.0.0.1:").last?.prefix { $0.isNumber } ?? ""
            guard let port = Int(portDigits) else { throw TestFailure(description: "no port in: \(log)") }
            return (process, errors, port, log)
        } catch {
            stopIfRunning(process)
            throw error
        }
    }

    /// Reads `pipe` until a line contains `needle` or `timeout` passes; returns the text read.
    private func readUntil(_ needle: String, in pipe: Pipe, timeout: Double = 10) throws -> String {
        let reader = StreamSocket(descriptor: pipe.fileHandleForReading.fileDescriptor)
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while !text.contains(needle) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, reader.waitReadable(timeoutMilliseconds: Int32(remaining * 1_000) + 1) else {
                throw TestFailure(description: "no '\(needle)' within \(timeout) s; got: \(text)")
            }
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { throw TestFailure(description: "output ended without '\(needle)'; got: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    /// Stops a launched daemon by its pid if it is still running, so that no
    /// test leaves one behind, whatever failed.
    private func stopIfRunning(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private func waitForExit(_ process: Process, timeout: Double = 10) throws -> Int32 {
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        if process.isRunning && exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TestFailure(description: "observatoryd did not exit within \(timeout) s")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func sigtermSendsShutdownAndExitsZero() throws {
        let (process, errors, port, log) = try launchListening(["--log-level", "debug"])
        defer { stopIfRunning(process) }
        let client = try LineClient(port: port)
        #expect(try client.request(#"{"op":"set","key":"k","value":1,"id":1}"#)["ok"] == true)
        #expect(kill(process.processIdentifier, SIGTERM) == 0)
        let messages = try client.readUntilClosed()
        #expect(messages.contains(try JSONValue.parse(#"{"event":"shutdown"}"#)))
        #expect(try waitForExit(process) == 0)
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("received SIGTERM"))
        #expect(log.contains(" INFO ") && log.contains("Z "))
    }

    /// The daemon runs in its own process so that each side stays within the
    /// usual open-file limit (20,000 here) with 10,000 sockets.
    @Test func tenThousandConcurrentConnectionsAllObserveAndReceive() throws {
        let (process, _, port, _) = try launchListening([])
        defer { stopIfRunning(process) }
        let limit = FileDescriptorLimit.raiseToMaximum().after
        try #require(limit > 10_100, "this test needs an open-file limit above 10,100, not \(limit)")
        var clients: [LineClient] = []
        // In batches, each answered before the next connects, so the listen
        // backlog never overflows into slow SYN retries.
        for _ in 0..<20 {
            let batch = try (0..<500).map { _ in try LineClient(port: port) }
            for client in batch { try client.send(#"{"op":"observe","key":"broadcast"}"#) }
            for client in batch { #expect(try client.next()["values"] == []) }
            clients += batch
        }
        let writer = try LineClient(port: port)
        #expect(try writer.request(#"{"op":"set","key":"broadcast","value":"hi"}"#)["ok"] == true)
        var received = 0
        for client in clients where try client.next()["new"] == "hi" { received += 1 }
        #expect(received == 10_000)
    }

    @Test func badConfigurationExitsTwoNamingTheSetting() throws {
        let (process, _, errors) = try launch(["--port", "70000"])
        defer { stopIfRunning(process) }
        #expect(try waitForExit(process) == 2)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("'port'"))
    }

    @Test func versionPrintsAndExitsZero() throws {
        let (process, output, _) = try launch(["--version"])
        defer { stopIfRunning(process) }
        #expect(try waitForExit(process) == 0)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasPrefix("observatoryd "))
    }
}
