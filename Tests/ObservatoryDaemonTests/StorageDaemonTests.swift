import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Storage as operators meet it: spawned `observatoryd` processes, killed with
/// SIGKILL in the middle of pipelined writes, restarted on the same directory.
@Suite(.timeLimit(.minutes(3))) struct StorageDaemonTests {
    private let launcher = DaemonLauncher()
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private var dataPath: String { directory.path(of: "data") }

    /// What a writer was told: the change at `version` of `key` set `value`.
    private struct Acknowledged {
        let version: Int64
        let value: JSONValue?
        let author: String
    }

    @Test(arguments: [FsyncPolicy.always, .everysec])
    func killedInTheMiddleOfAWriteStormEveryAcknowledgedChangeSurvives(fsync: FsyncPolicy) throws {
        var acknowledged: [String: Acknowledged] = [:]
        var acknowledgedWrites = 0
        var epoch: String?
        for cycle in 0..<4 {
            let (process, _, port, _) = try launcher.launchListening(["--fsync", fsync.rawValue, "--data", dataPath])
            defer { launcher.stopIfRunning(process) }
            let checker = try LineClient(port: port)
            try verify(acknowledged, against: checker)
            let hello = try checker.request(#"{"op":"hello","name":"checker"}"#)
            if let epoch { #expect(hello["epoch"]?.stringValue == epoch, "cycle \(cycle)") }
            epoch = hello["epoch"]?.stringValue
            let lastRevision = acknowledged.values.map(\.version).max() ?? 0
            #expect((hello["revision"]?.integerValue ?? -1) >= lastRevision, "cycle \(cycle)")

            let writers = try (0..<4).map { index in try Writer(port: port, name: "w\(index)-\(cycle)") }
            try writers[0].deleteAfterSetting("deleted.\(cycle)", into: &acknowledged)
            for round in 0..<6 {
                for writer in writers { try writer.sendBatch(round: round, cycle: cycle) }
                for writer in writers { try writer.readReplies(into: &acknowledged) }
            }
            // One more batch from every writer, and the kill while it is in flight.
            for writer in writers { try writer.sendBatch(round: 6, cycle: cycle) }
            #expect(kill(process.processIdentifier, SIGKILL) == 0)
            for writer in writers { writer.readWhatArrived(into: &acknowledged) }
            acknowledgedWrites += writers.reduce(0) { $0 + $1.acknowledgedWrites }
            process.waitUntilExit()
        }
        let (process, _, port, _) = try launcher.launchListening(["--fsync", fsync.rawValue, "--data", dataPath])
        defer { launcher.stopIfRunning(process) }
        try verify(acknowledged, against: try LineClient(port: port))
        #expect(acknowledgedWrites >= 4 * 4 * 6 * 25)
    }

    /// Every acknowledged change is there, or a later change of the same key is
    /// (a write that was applied but whose reply the kill took); deletes stay
    /// deleted; new changes take revisions above every acknowledged one.
    private func verify(_ acknowledged: [String: Acknowledged], against client: LineClient) throws {
        for (key, change) in acknowledged.sorted(by: { $0.key < $1.key }) {
            let reply = try client.request(#"{"op":"get","key":"\#(key)"}"#)
            guard let value = change.value else {
                #expect(reply["error"]?["code"] == "not_found", "\(key) was deleted at \(change.version): \(reply)")
                continue
            }
            let version = reply["version"]?.integerValue ?? 0
            #expect(version >= change.version, "\(key): acknowledged version \(change.version), found \(reply)")
            if version == change.version {
                #expect(reply["value"] == value, "\(key) at \(version)")
                #expect(reply["author"]?.stringValue == change.author, "\(key) at \(version)")
            }
        }
        let maximum = acknowledged.values.map(\.version).max() ?? 0
        let next = try client.request(#"{"op":"set","key":"probe","value":\#(maximum)}"#)
        #expect((next["version"]?.integerValue ?? 0) > maximum || next["changed"] == false)
    }

    /// One pipelining connection; it writes its own keys, so each acknowledged
    /// change of a key is newer than the one before.
    private final class Writer {
        let client: LineClient
        let name: String
        private var pending: [(key: String, value: JSONValue?)] = []
        private(set) var acknowledgedWrites = 0

        init(port: Int, name: String) throws {
            client = try LineClient(port: port)
            self.name = name
            _ = try client.request(#"{"op":"hello","name":"\#(name)"}"#)
        }

        func sendBatch(round: Int, cycle: Int) throws {
            var frames = ""
            for index in 0..<25 {
                let key = "\(name.prefix(2)).k\(index % 10)"
                let value = JSONValue.object([
                    "cycle": .integer(Int64(cycle)), "round": .integer(Int64(round)), "i": .integer(Int64(index)),
                ])
                frames +=
                    #"{"op":"set","key":"\#(key)","value":\#(String(decoding: value.encoded(), as: UTF8.self))}"# + "\n"
                pending.append((key, value))
            }
            try client.sendBytes(Array(frames.utf8))
        }

        func deleteAfterSetting(_ key: String, into acknowledged: inout [String: Acknowledged]) throws {
            _ = try client.request(#"{"op":"set","key":"\#(key)","value":1}"#)
            let reply = try client.request(#"{"op":"delete","key":"\#(key)"}"#)
            let version = try #require(reply["version"]?.integerValue)
            acknowledged[key] = Acknowledged(version: version, value: nil, author: name)
        }

        func readReplies(into acknowledged: inout [String: Acknowledged]) throws {
            while !pending.isEmpty {
                record(try client.next(), into: &acknowledged)
            }
        }

        /// Takes the replies that made it out before the kill; the rest were never acknowledged.
        func readWhatArrived(into acknowledged: inout [String: Acknowledged]) {
            while !pending.isEmpty, let reply = try? client.next(timeout: 5) {
                record(reply, into: &acknowledged)
            }
        }

        private func record(_ reply: JSONValue, into acknowledged: inout [String: Acknowledged]) {
            let (key, value) = pending.removeFirst()
            guard reply["ok"] == true, let version = reply["version"]?.integerValue else {
                Issue.record("\(key): \(reply)")
                return
            }
            acknowledged[key] = Acknowledged(version: version, value: value, author: name)
            acknowledgedWrites += 1
        }
    }

    /// docs/protocol.md: a restart ends every session. The keys bound to sessions that
    /// died with a killed daemon are deleted at the next start, as new changes that
    /// a resuming observer receives; a write retried across the kill applies once.
    @Test func afterAKillTheNextStartDeletesSessionBoundKeysAndRemembersRequestIds() throws {
        let arguments = ["--fsync", "always", "--data", dataPath]
        let (first, _, port, _) = try launcher.launchListening(arguments)
        defer { launcher.stopIfRunning(first) }
        let alice = try LineClient(port: port)
        let hello = try alice.request(#"{"op":"hello","name":"alice"}"#)
        let set = try alice.request(#"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#)
        #expect(set["ok"] == true, "\(set)")
        let write = try alice.request(#"{"op":"set","key":"orders.1","value":{"qty":2},"requestId":"order-1"}"#)
        #expect(write["version"] == 2, "\(write)")
        #expect(kill(first.processIdentifier, SIGKILL) == 0)
        first.waitUntilExit()

        let (second, _, secondPort, log) = try launcher.launchListening(arguments)
        defer { launcher.stopIfRunning(second) }
        #expect(log.contains("deleted 1 session-bound keys"), "\(log)")
        let bob = try LineClient(port: secondPort)
        let epoch = hello["epoch"]?.stringValue ?? ""
        let resumed = try bob.request(#"{"op":"observe","prefix":"","fromRevision":2,"epoch":"\#(epoch)"}"#)
        #expect(resumed["resumed"] == true && resumed["revision"] == 3, "\(resumed)")
        let deletion = try bob.next()
        #expect(deletion["event"] == "delete" && deletion["key"] == "presence.alice", "\(deletion)")
        #expect(deletion["reason"] == "session_ended" && deletion["version"] == 3)
        #expect(deletion["author"] == "alice" && deletion["session"] == hello["session"])
        let retry = try bob.request(#"{"op":"set","key":"orders.1","value":{"qty":2},"requestId":"order-1"}"#)
        #expect(retry["duplicate"] == true && retry["version"] == 2, "\(retry)")
        #expect(try bob.request(#"{"op":"ping"}"#)["revision"] == 3, "the retry made no change")
    }

    @Test func aSecondDaemonOnTheDirectoryExitsOneNamingItAndTheHolder() throws {
        let (first, _, _, _) = try launcher.launchListening(["--data", dataPath])
        defer { launcher.stopIfRunning(first) }
        let (second, _, errors) = try launcher.launch(["--port", "0", "--data", dataPath])
        defer { launcher.stopIfRunning(second) }
        #expect(try launcher.waitForExit(second) == 1)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("data directory \(dataPath) is in use"))
        #expect(text.contains("pid \(first.processIdentifier)"))
    }

    @Test func gracefulShutdownFlushesAndCheckReadsTheDirectory() throws {
        let (process, _, port, _) = try launcher.launchListening(["--fsync", "always", "--data", dataPath])
        defer { launcher.stopIfRunning(process) }
        let client = try LineClient(port: port)
        for index in 0..<20 {
            #expect(try client.request(#"{"op":"set","key":"k.\#(index)","value":\#(index)}"#)["ok"] == true)
        }
        #expect(kill(process.processIdentifier, SIGTERM) == 0)
        #expect(try launcher.waitForExit(process) == 0)

        let (check, output, _) = try launcher.launch(["--check", "--data", dataPath])
        defer { launcher.stopIfRunning(check) }
        #expect(try launcher.waitForExit(check) == 0)
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(report.contains("keys: 20"))
        #expect(report.contains("revision: 20"))
        #expect(report.contains("status: ok"))
    }

    @Test func checkExitsOneOnADamagedDirectory() throws {
        let (process, _, port, _) = try launcher.launchListening(["--data", dataPath])
        defer { launcher.stopIfRunning(process) }
        let client = try LineClient(port: port)
        for index in 0..<10 {
            _ = try client.request(#"{"op":"set","key":"k.\#(index)","value":\#(index)}"#)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let log = dataPath + "/log-0000000001.obs"
        var bytes = try #require(FileManager.default.contents(atPath: log))
        bytes[bytes.count / 2] ^= 0x42
        try bytes.write(to: URL(fileURLWithPath: log))

        let (check, output, _) = try launcher.launch(["--check", "--data", dataPath])
        defer { launcher.stopIfRunning(check) }
        #expect(try launcher.waitForExit(check) == 1)
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(report.contains("\(log) is damaged at offset"))
        let (start, _, errors) = try launcher.launch(["--port", "0", "--data", dataPath])
        defer { launcher.stopIfRunning(start) }
        #expect(try launcher.waitForExit(start) == 1)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("is damaged at offset"))
    }
}
