import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// The offline store's file format and cap, without a file.
@Suite struct OfflineStoreTests {
    private func entry(_ key: String, value: JSONValue = "v", write: String? = nil) -> OfflineEntry {
        var entry = OfflineEntry(key: key, value: value, version: 4, authorName: "alice", revision: 9, epoch: "e1")
        entry.authorSession = "s1"
        entry.write = write.map { OfflineEntry.Write(value: .string($0), requestId: "r-\(key)", basedOn: 4) }
        return entry
    }

    private func store(_ entries: [OfflineEntry]) -> OfflineStore {
        var store = OfflineStore()
        for entry in entries { store.record(entry) }
        return store
    }

    @Test func aSavedStoreReadsBackAsTheSameEntries() throws {
        let kept = store([entry("a"), entry("b", write: "mine"), entry("c", value: .null)])
        let read = try OfflineStoreFormat.decode(kept.image(limit: 1 << 20).bytes).get()
        #expect(read.sorted { $0.key < $1.key } == kept.entries.values.sorted { $0.key < $1.key })
        let reloaded = OfflineStore(entries: read)
        #expect(reloaded.entry(for: "b")?.write?.requestId == "r-b")
    }

    @Test func anEmptyStoreIsAValidFile() throws {
        #expect(try OfflineStoreFormat.decode(OfflineStore().image(limit: 1 << 20).bytes).get() == [])
    }

    @Test func aFileCutShortAnywhereIsNeverReadAsValid() {
        let bytes = store([entry("a"), entry("b", write: "mine")]).image(limit: 1 << 20).bytes
        for length in 0..<bytes.count {
            let result = OfflineStoreFormat.decode(Array(bytes.prefix(length)))
            guard case .failure(let flaw) = result else {
                Issue.record("a file cut to \(length) of \(bytes.count) bytes was read as valid")
                return
            }
            if length >= OfflineStoreFormat.headerLength {
                #expect(flaw == .torn(missing: bytes.count - length))
            }
        }
    }

    @Test func aChangedByteIsDetectedAsDamage() {
        var bytes = store([entry("a")]).image(limit: 1 << 20).bytes
        bytes[bytes.count - 5] ^= 0x20
        guard case .failure(.damaged(let detail)) = OfflineStoreFormat.decode(bytes) else {
            Issue.record("a changed byte was not detected")
            return
        }
        #expect(detail == "checksum mismatch")
    }

    @Test func bytesAfterThePayloadAreDamage() {
        let bytes = store([entry("a")]).image(limit: 1 << 20).bytes + [0x20]
        guard case .failure(.damaged) = OfflineStoreFormat.decode(bytes) else {
            Issue.record("trailing bytes were not detected")
            return
        }
    }

    @Test func aFileOfAnotherFormatIsForeign() {
        #expect(OfflineStoreFormat.decode(Array("{\"entries\":[]}".utf8)) == .failure(.foreign))
        #expect(OfflineStoreFormat.decode([]) == .failure(.foreign))
    }

    @Test func overTheCapTheOldestValuesWithoutWritesGoFirst() throws {
        let kept = store([entry("old"), entry("written", write: "mine"), entry("middle"), entry("new")])
        let full = kept.image(limit: 1 << 20).bytes.count
        let image = kept.image(limit: full - 1)
        #expect(image.evicted == ["old"])
        #expect(image.unkeptWrites == [])
        #expect(image.bytes.count <= full - 1)
        let read = try OfflineStoreFormat.decode(image.bytes).get().map(\.key).sorted()
        #expect(read == ["middle", "new", "written"])
    }

    @Test func whenOnlyWritesAreLeftTheNewestWritesAreNotKept() throws {
        let kept = store([entry("value"), entry("first", write: "1"), entry("second", write: "2")])
        let oneWrite = store([entry("first", write: "1")]).image(limit: 1 << 20).bytes.count
        let image = kept.image(limit: oneWrite)
        #expect(image.evicted == ["value"])
        #expect(image.unkeptWrites == ["second"])
        #expect(try OfflineStoreFormat.decode(image.bytes).get().map(\.key) == ["first"])
    }

    @Test func aRecordedEntryCountsAsTheNewest() {
        var kept = store([entry("a"), entry("b")])
        kept.record(entry("a"))
        let full = kept.image(limit: 1 << 20).bytes.count
        #expect(kept.image(limit: full - 1).evicted == ["b"])
    }
}
