import Foundation
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

/// Launches the built `observatoryd` as a separate process, and stops it by pid.
struct DaemonLauncher {
    /// The `observatoryd` built next to this test bundle.
    func daemonURL() throws -> URL {
        try BuiltExecutable.url(named: "observatoryd")
    }

    /// Launches the daemon with `arguments`; `extraEnvironment` is added to this process's environment.
    func launch(_ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try daemonURL()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "OBSERVATORY_CONFIG", "OBSERVATORY_HOST", "OBSERVATORY_PORT", "OBSERVATORY_LOG_LEVEL", "OBSERVATORY_DATA",
            "OBSERVATORY_FSYNC",
        ] {
            environment[name] = nil
        }
        process.environment = environment.merging(extraEnvironment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Launches the daemon on a free port and waits for its startup line; returns
    /// the process, its standard error, the port it listens on, and the log so far.
    func launchListening(
        _ arguments: [String], extraEnvironment: [String: String] = [:]
    ) throws -> (Process, Pipe, port: Int, log: String) {
        let (process, _, errors) = try launch(["--port", "0"] + arguments, extraEnvironment: extraEnvironment)
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
    func readUntil(_ needle: String, in pipe: Pipe, timeout: Double = 10) throws -> String {
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
    func stopIfRunning(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func waitForExit(_ process: Process, timeout: Double = 10) throws -> Int32 {
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        if process.isRunning && exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TestFailure(description: "observatoryd did not exit within \(timeout) s")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
