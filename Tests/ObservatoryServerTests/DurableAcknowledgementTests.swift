import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// docs/protocol.md, "Durability", over real sockets: a change is acknowledged, and
/// its events sent, only once storage has it under the policy.
@Suite(.timeLimit(.minutes(1))) struct DurableAcknowledgementTests {
    private let directory: TemporaryDirectory
    private let files = FaultyFiles()
    private let server: Server

    init() throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        let configuration = testConfiguration {
            $0.fsync = .always
            $0.dataDirectory = directory.path(of: "data")
        }
        server = try Server(configuration: configuration, storageOptions: StorageOptions(fsync: .always, files: files))
        try server.start()
    }

    /// Waits until the server has applied `revision` (the change is in memory and in the log).
    private func waitForRevision(_ revision: Int64) throws {
        try waitUntil("revision \(revision)") { server.store.revision >= revision }
    }

    @Test func underAlwaysTheReplyAndTheEventsWaitForTheFsync() throws {
        defer { server.stop() }
        let observer = try LineClient(port: server.port)
        #expect(try observer.request(#"{"op":"observe","key":"k","id":1}"#)["ok"] == true)
        let writer = try LineClient(port: server.port)
        files.holdSynchronize()
        defer { files.releaseSynchronize() }
        try writer.send(#"{"op":"set","key":"k","value":1,"id":2}"#, #"{"op":"ping","id":3}"#)
        try waitForRevision(1)
        #expect(files.synchronizeStarted.wait(timeout: .now() + 10) == .success)
        // Applied and written, but not on disk: nothing about it has left the server
        // (each read times out).
        #expect(throws: TestFailure.self) { try writer.nextLine(timeout: 0.3) }
        #expect(throws: TestFailure.self) { try observer.nextLine(timeout: 0.05) }
        files.releaseSynchronize()
        let reply = try writer.next()
        #expect(reply["id"] == 2 && reply["version"] == 1)
        #expect(try writer.next()["id"] == 3)
        let event = try observer.next()
        #expect(event["event"] == "update" && event["version"] == 1)
    }

    @Test func underAlwaysAFailedFsyncAnswersTheWriterInternalAndReadsGoOn() throws {
        defer { server.stop() }
        let writer = try LineClient(port: server.port)
        #expect(try writer.request(#"{"op":"set","key":"k","value":1,"id":1}"#)["ok"] == true)
        files.fail(.synchronize, with: EIO)
        let failed = try writer.request(#"{"op":"set","key":"k","value":2,"id":2}"#)
        #expect(failed["ok"] == false && failed["id"] == 2)
        #expect(failed["error"]?["code"] == "internal")
        #expect(failed["error"]?["message"]?.stringValue?.contains("Input/output error") == true)
        let refused = try writer.request(#"{"op":"set","key":"other","value":3,"id":3}"#)
        #expect(refused["error"]?["code"] == "internal")
        let reader = try LineClient(port: server.port)
        #expect(try reader.request(#"{"op":"get","key":"other","id":4}"#)["error"]?["code"] == "not_found")
        files.heal(.synchronize)
        var reply = try writer.request(#"{"op":"set","key":"other","value":5,"id":5}"#)
        // Storage retries once a second: the write succeeds once it has recovered.
        try waitUntil("a write after recovery", timeout: .seconds(20)) {
            if reply["ok"] != true { reply = try writer.request(#"{"op":"set","key":"other","value":5,"id":5}"#) }
            return reply["ok"] == true
        }
        #expect(reply["ok"] == true)
    }

    /// A turn's changes are written in one `write(2)`: when it fails, they are taken back.
    @Test func aFailedBatchWriteAnswersItsWriterInternalAndNoReaderSeesTheChange() throws {
        defer { server.stop() }
        let observer = try LineClient(port: server.port)
        #expect(try observer.request(#"{"op":"observe","key":"k","id":1}"#)["ok"] == true)
        let writer = try LineClient(port: server.port)
        #expect(try writer.request(#"{"op":"set","key":"k","value":1,"id":2}"#)["version"] == 1)
        #expect(try observer.next()["version"] == 1)

        files.fail(.write, with: ENOSPC)
        let failed = try writer.request(#"{"op":"set","key":"k","value":2,"id":3}"#)
        #expect(failed["ok"] == false && failed["error"]?["code"] == "internal")
        #expect(failed["error"]?["message"]?.stringValue?.contains("No space left on device") == true)
        #expect(failed["error"]?["message"]?.stringValue?.contains("this change was not made") == true)
        files.heal(.write)

        let reader = try LineClient(port: server.port)
        let read = try reader.request(#"{"op":"get","key":"k","id":4}"#)
        #expect(read["value"] == 1 && read["version"] == 1)
        #expect(try reader.request(#"{"op":"ping","id":5}"#)["revision"] == 1)
        let refused = try writer.request(#"{"op":"set","key":"k","value":3,"id":6}"#)
        #expect(refused["error"]?["message"]?.stringValue?.contains("until the server restarts") == true)
        // The observer got no event for the change that was taken back (the read times out).
        #expect(throws: TestFailure.self) { try observer.nextLine(timeout: 0.3) }
    }
}
