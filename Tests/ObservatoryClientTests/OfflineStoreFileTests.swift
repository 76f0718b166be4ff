import Foundation
import ObservatoryTestSupport
import Testing

@testable import ObservatoryClient

/// The offline store's file shell: saving, loading, and a bad file set aside.
@Suite struct OfflineStoreFileTests {
    private func image(_ keys: [String]) -> [UInt8] {
        var store = OfflineStore()
        for key in keys { store.record(OfflineEntry(key: key, value: "v", version: 2, revision: 2, epoch: "e")) }
        return store.image(limit: 1 << 20).bytes
    }

    @Test func aSavedStoreLoadsAgainAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let file = OfflineStoreFile(directory: directory.path)
        try file.save(image(["a", "b"]))
        try file.save(image(["c"]))
        let (entries, problem) = file.load()
        #expect(problem == nil)
        #expect(entries.map(\.key) == ["c"])
        #expect(directory.names() == [OfflineStoreFile.name])
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "readable by its owner only")
    }

    @Test func aMissingDirectoryIsCreatedOnTheFirstSave() throws {
        let directory = try TemporaryDirectory()
        let file = OfflineStoreFile(directory: directory.path(of: "nested/deeper"))
        #expect(file.load().entries.isEmpty)
        try file.save(image(["a"]))
        #expect(file.load().entries.map(\.key) == ["a"])
    }

    @Test func aTornFileIsSetAsideAndReported() throws {
        let directory = try TemporaryDirectory()
        let file = OfflineStoreFile(directory: directory.path)
        let bytes = image(["a"])
        try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: file.path))
        let (entries, problem) = file.load()
        #expect(entries.isEmpty)
        #expect(problem?.code == .offlineStoreSetAside)
        #expect(problem?.message.contains("ends 3 bytes early") == true)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(directory.names().count == 1)
        #expect(directory.names().first?.hasPrefix(OfflineStoreFile.name + ".damaged-") == true)
        #expect(file.load().problem == nil, "the next start begins afresh")
    }

    @Test func aForeignFileIsSetAsideAndReported() throws {
        let directory = try TemporaryDirectory()
        let file = OfflineStoreFile(directory: directory.path)
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: file.path))
        let problem = file.load().problem
        #expect(problem?.code == .offlineStoreSetAside)
        #expect(problem?.message.contains("not an Observatory offline store") == true)
    }
}
