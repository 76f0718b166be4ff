import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

/// Runs the built `observatoryd` binary as a separate process.
@Suite struct DaemonProcessTests {
    private let launcher = DaemonLauncher()

    @Test func sigtermSendsShutdownAndExitsZero() throws {
        let (process, errors, port, log) = try launcher.launchListening(["--log-level", "debug", "--fsync", "none"])
        defer { launcher.stopIfRunning(process) }
        let client = try LineClient(port: port)
        #expect(try client.request(#"{"op":"set","key":"k","value":1,"id":1}"#)["ok"] == true)
        #expect(kill(process.processIdentifier, SIGTERM) == 0)
        let messages = try client.readUntilClosed()
        #expect(messages.contains(try JSONValue.parse(#"{"event":"shutdown"}"#)))
        #expect(try launcher.waitForExit(process) == 0)
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("received SIGTERM"))
        #expect(log.contains(" INFO ") && log.contains("Z "))
    }

    /// The daemon runs in its own process so that each side stays within the
    /// usual open-file limit (20,000 here) with 10,000 sockets.
    @Test func tenThousandConcurrentConnectionsAllObserveAndReceive() throws {
        let (process, _, port, _) = try launcher.launchListening(["--fsync", "none"])
        defer { launcher.stopIfRunning(process) }
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
        let (process, _, errors) = try launcher.launch(["--port", "70000"])
        defer { launcher.stopIfRunning(process) }
        #expect(try launcher.waitForExit(process) == 2)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("'port'"))
    }

    @Test func versionPrintsAndExitsZero() throws {
        let (process, output, _) = try launcher.launch(["--version"])
        defer { launcher.stopIfRunning(process) }
        #expect(try launcher.waitForExit(process) == 0)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasPrefix("observatoryd "))
    }
}
