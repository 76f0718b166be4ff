import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A change's record framed straight from its fields (`Storage.buffer(_:expiry:)`)
/// is byte for byte the record `storageRecords` builds: the log a set writes
/// reads back, by this release and the one before, as it always did.
@Suite(.timeLimit(.minutes(2))) struct ChangeRecordEncodingTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private static let expiry = KeyExpiry(seconds: 30, deadline: 1_700_000_030_000, author: "alice", session: "s1")

    /// Every kind of change record: a creation, an update, session-bound and
    /// expiring sets, and the three deletes.
    private static let changes: [(StoreChange, KeyExpiry?)] = {
        let alice = Author(name: "alice", session: "s1")
        let bob = Author(name: "bob", session: "s2")
        return [
            (.update(key: "door.locked", old: nil, new: ["rgb": [0, 0.5, 1]], version: 1, by: alice, at: 1_000), nil),
            (.update(key: "door.locked", old: true, new: "ünïcødé 😀", version: 2, by: bob, at: 1_000), nil),
            (.update(key: "é.k", old: nil, new: 3, version: 300, by: bob, sessionBound: true, at: 2_000), nil),
            (.update(key: "ttl.k", old: nil, new: 4, version: 301, by: alice, ttl: 30, at: 2_000), expiry),
            (
                .update(
                    key: "ttl.bound", old: nil, new: 5, version: 302, by: alice, sessionBound: true, ttl: 30, at: 9),
                expiry
            ),
            (.delete(key: "door.locked", old: true, version: 303, by: alice, at: 9), nil),
            (.delete(key: "é.k", old: 3, version: 304, by: bob, reason: RawEvent.sessionEnded, at: 10), nil),
            (.delete(key: "ttl.k", old: 4, version: 305, by: alice, reason: RawEvent.expired, at: -5), nil),
        ]
    }()

    @Test func aChangeEncodesTheRecordItsStorageRecordsHold() {
        for (change, expiry) in Self.changes {
            var bytes: [UInt8] = []
            change.encodeRecord(expiry: expiry, into: &bytes)
            let records = change.storageRecords(expiry: expiry)
            #expect(records.count == 2)
            #expect(bytes == records.last?.encoded(), "\(change.event)")
        }
    }

    @Test func aRecordFramedFromItsFieldsIsTheRecordFramedWhole() {
        for (change, expiry) in Self.changes {
            var direct: [UInt8] = [7]
            change.appendRecord(expiry: expiry, to: &direct)
            var whole: [UInt8] = [7]
            for record in change.storageRecords(expiry: expiry).dropFirst() { RecordFraming.append(record, to: &whole) }
            #expect(direct == whole, "\(change.event)")
        }
    }

    @Test(arguments: [0, 1, -1, 63, 64, 1_700_000_000_000, Int64.min, Int64.max])
    func aChangeTimeFramedFromItsFieldIsTheRecordFramedWhole(_ at: Int64) {
        var direct: [UInt8] = []
        StorageRecord.appendChangeTime(at, to: &direct)
        #expect(direct == RecordFraming.framed(.changeTime(at)))
    }

    @Test func storageBuffersAChangeAsItBuffersItsRecords() throws {
        let context = try open(.everysec)
        let log = try storage(of: context)
        for (change, expiry) in Self.changes {
            try log.buffer(change, expiry: expiry)
        }
        let direct = log.takeBuffered()
        for (change, expiry) in Self.changes {
            try log.buffer(change.storageRecords(expiry: expiry), revision: change.version)
        }
        let whole = log.takeBuffered()
        #expect(direct.bytes == whole.bytes)
        #expect(direct.revision == 305 && whole.revision == 305)
        let read = direct.bytes.withUnsafeBytes { raw in
            var scanner = RecordScanner(raw)
            var found: [StorageRecord] = []
            while let item = scanner.next() { found.append(item.record) }
            return found
        }
        // Equal times in a row are written once: 1,000, 2,000, 9, 10 and -5.
        #expect(read.filter { if case .changeTime = $0 { true } else { false } }.count == 5)
        #expect(read.count == 5 + Self.changes.count)
        log.close()
    }
}
