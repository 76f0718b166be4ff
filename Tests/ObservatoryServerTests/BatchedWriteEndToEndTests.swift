import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Writes batched per loop turn over real sockets: what the writer, an observer
/// and a reader get when the turn's `write(2)` fails.
@Suite(.timeLimit(.minutes(1))) struct BatchedWriteEndToEndTests {
    private let directory: TemporaryDirectory
    private let files = FaultyFiles()
    private let server: Server

    init() throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        let configuration = testConfiguration {
            $0.fsync = .everysec
            $0.dataDirectory = directory.path(of: "data")
        }
        server = try Server(
            configuration: configuration, storageOptions: StorageOptions(fsync: .everysec, files: files))
        try server.start()
    }

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
        #expect(throws: TestFailure.self) {
            print("GOT", String(decoding: try observer.nextLine(timeout: 0.3) ?? [], as: UTF8.self))
        }
    }
}
