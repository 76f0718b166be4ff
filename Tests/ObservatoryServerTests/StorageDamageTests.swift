import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// What storage does with damaged files: a torn tail, a damaged record, and the
/// read-only check of a directory.
@Suite(.timeLimit(.minutes(2))) struct StorageDamageTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: Damage

    @Test func aTornTailIsCutWithAWarningAndEverythingBeforeItLoads() throws {
        let first = try open(.everysec)
        for index in 0..<10 { try first.store.set("k.\(index)", to: .integer(Int64(index)), by: alice) }
        let log = directory.path(of: "data/log-0000000001.obs")
        try storage(of: first).close()
        let whole = try #require(FileManager.default.contents(atPath: log))
        let recordBytes = RecordFraming.framed(
            .set(RawValueEntry(key: "k.9", value: 9, version: 10, author: "alice", session: "s1"))
        ).count
        let lastStart = whole.count - recordBytes
        for cut in (lastStart + 1)..<whole.count {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: log))
            let recording = RecordingLogSink()
            var configuration = testConfiguration()
            configuration.fsync = .everysec
            configuration.dataDirectory = directory.path(of: "data")
            let context = try SessionFixture(
                configuration: configuration, logger: Logger(level: .debug, sink: recording))
            #expect(context.store.revision == 9, "cut at \(cut)")
            #expect(context.store.get("k.9") == nil)
            let warnings = recording.records.filter { $0.level == .warning }.map(\.message)
            #expect(warnings.contains { $0.contains("log-0000000001.obs at offset \(lastStart)") }, "\(warnings)")
            #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == lastStart)
            context.store.storage?.close()
            // Later starts see the cut file, and the new logs each start wrote: clean each time.
            let newLogs = try FileManager.default.contentsOfDirectory(atPath: directory.path(of: "data"))
                .filter { $0.hasPrefix("log-") && $0 != "log-0000000001.obs" }
            for log in newLogs { try FileManager.default.removeItem(atPath: directory.path(of: "data/\(log)")) }
        }
    }

    @Test func aDamagedRecordInTheMiddleStopsTheStartNamingFileAndOffset() throws {
        let first = try open(.everysec)
        for index in 0..<10 { try first.store.set("k.\(index)", to: .integer(Int64(index)), by: alice) }
        try storage(of: first).close()
        let log = directory.path(of: "data/log-0000000001.obs")
        var bytes = try #require(FileManager.default.contents(atPath: log))
        let offset = bytes.count / 2
        bytes[offset] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: log))
        do {
            _ = try open(.everysec)
            Issue.record("started on a damaged log")
        } catch let error as StorageError {
            #expect(error.code == .damaged)
            #expect(error.message.contains(log))
            #expect(error.message.contains("truncate -s"))
        }
        let check = DataDirectoryCheck.run(directory: directory.path(of: "data"))
        #expect(!check.isLoadable)
        #expect(check.report.contains("damaged at offset"))
        // Nothing was changed: the damaged file is as it was.
        #expect(FileManager.default.contents(atPath: log) == bytes)
    }

    @Test func checkReportsKeysRevisionEpochAndFilesWithoutChangingThem() throws {
        let first = try open(.everysec)
        for index in 0..<5 { try first.store.set("k.\(index)", to: .integer(Int64(index)), by: alice) }
        try first.store.delete("k.0", by: alice)
        let epoch = first.store.epoch
        try storage(of: first).abandon()
        let before = directory.names()
        let check = DataDirectoryCheck.run(directory: directory.path(of: "data"))
        #expect(check.isLoadable)
        #expect(check.report.contains("keys: 4"))
        #expect(check.report.contains("revision: 6"))
        #expect(check.report.contains("epoch: \(epoch)"))
        #expect(check.report.contains("log-0000000001.obs"))
        #expect(directory.names() == before)
    }
}
