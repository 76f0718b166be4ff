import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A change's `at` is stored with it: a restart, from the log or from a
/// snapshot after compaction, gives `history` the same times; a data directory
/// written before times were stored still loads, its changes at 0.
@Suite(.timeLimit(.minutes(2))) struct HistoryStorageTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func held(_ store: SharedStore, _ target: Target = .prefix("")) -> [(version: Int64, at: Int64)] {
        store.history(HistoryQuery(target, limit: HistoryQuery.maxLimit), maxBytes: .max) { _ in true }
            .changes.map { ($0.version, $0.at) }
    }

    @Test(arguments: [FsyncPolicy.everysec, .always])
    func aRestartKeepsTheTimeOfEveryHeldChange(fsync: FsyncPolicy) throws {
        let first = try open(fsync)
        try first.store.set("door.locked", to: true, by: alice)
        try first.store.set("door.locked", to: false, by: bob)
        try first.store.delete("door.locked", by: alice)
        let before = held(first.store)
        #expect(before.count == 3 && before.allSatisfy { $0.at > 0 })
        try storage(of: first).close()

        let second = try open(fsync)
        let after = held(second.store)
        #expect(after.map(\.version) == before.map(\.version))
        #expect(after.map(\.at) == before.map(\.at))
    }

    @Test func aSnapshotKeepsTheTimesToo() throws {
        let first = try open(.everysec)
        for index in 0..<20 { try first.store.set("k.\(index % 3)", to: .integer(Int64(index)), by: alice) }
        let before = held(first.store)
        try storage(of: first).compactNow()
        try storage(of: first).close()

        let second = try open(.everysec)
        let after = held(second.store)
        #expect(after.map(\.version) == before.map(\.version))
        #expect(after.map(\.at) == before.map(\.at))
    }

    @Test func changesStoredWithoutTimesLoadAtZeroAndLaterOnesGetTheirs() throws {
        let data = directory.path(of: "data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for (name, base64) in [
            ("snapshot-0000000002.obs", OldDataDirectory.snapshot), ("log-0000000002.obs", OldDataDirectory.log),
        ] {
            try #require(Data(base64Encoded: base64)).write(to: URL(fileURLWithPath: data + "/" + name))
        }
        let first = try open(.always)
        let old = held(first.store)
        #expect(old.count >= 20 && old.allSatisfy { $0.at == 0 }, "\(old)")
        let started = StoreChange.now()
        try first.store.set("sky.color", to: "green", by: alice)
        try storage(of: first).compactNow()
        try storage(of: first).close()

        let second = try open(.always)
        let reloaded = held(second.store)
        #expect(reloaded.dropLast().map(\.at) == old.map(\.at))
        #expect((reloaded.last?.at ?? 0) >= started, "\(reloaded)")
    }

    /// The changes of one turn that share a time share its record: only a new time is written.
    @Test func aTurnWritesEachTimeOnceAndARestartGivesEveryChangeItsOwn() throws {
        let first = try open(.everysec)
        let endOfTurn = try #require(first.store.batchWritesPerTurn())
        for index in 0..<50 {
            let write = Write.set(
                key: "k.\(index % 5)", value: .integer(Int64(index)), ifVersion: nil, sessionBound: false,
                requestId: nil)
            _ = try first.store.apply(write, by: alice)
        }
        endOfTurn()
        let before = held(first.store)
        try storage(of: first).close()

        let times = before.map(\.at)
        let runs = zip(times, times.dropFirst()).count { $0 != $1 } + 1
        var written = 0
        let data = directory.path(of: "data")
        for name in try FileManager.default.contentsOfDirectory(atPath: data) where name.hasPrefix("log-") {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: data + "/" + name)))
            bytes.withUnsafeBytes { raw in
                var scanner = RecordScanner(raw)
                while let item = scanner.next() {
                    if case .changeTime = item.record { written += 1 }
                }
            }
        }
        #expect(written == runs, "\(written) time records for \(runs) distinct times in a row")

        let second = try open(.everysec)
        #expect(held(second.store).map(\.at) == times)
    }
}
