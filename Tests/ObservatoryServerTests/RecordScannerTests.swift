import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct RecordScannerTests {
    private let records: [StorageRecord] = [
        .header(StorageHeader(kind: .log, epoch: "e1", revision: 0, sessionReservation: 1_024)),
        .set(RawValueEntry(key: "sky.color", value: ["rgb": [0, 0.5, 1]], version: 1, author: "alice", session: "s1")),
        .set(RawValueEntry(key: "é.k", value: "ünïcødé 😀", version: 2, author: "bob", session: "s2")),
        .delete(key: "sky.color", version: 3, author: "alice", session: "s1"),
        .sessionReservation(2_048),
    ]

    private func framed(_ records: [StorageRecord]) -> [UInt8] {
        records.reduce(into: []) { RecordFraming.append($1, to: &$0) }
    }

    private func scan(_ bytes: [UInt8]) -> (records: [StorageRecord], ending: RecordScanner.Ending?) {
        bytes.withUnsafeBytes { raw in
            var scanner = RecordScanner(raw)
            var found: [StorageRecord] = []
            while let item = scanner.next() { found.append(item.record) }
            return (found, scanner.ending)
        }
    }

    @Test func crc32cMatchesTheStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        // Longer than one 8-byte step, with a tail: both loops agree with the bytewise definition.
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(CRC32C.checksum(bytes) != CRC32C.checksum(Array(bytes.dropLast())))
    }

    @Test func everyRecordKindRoundTrips() {
        let result = scan(framed(records + [.snapshotEnd(entryCount: 7)]))
        #expect(result.records == records + [.snapshotEnd(entryCount: 7)])
        #expect(result.ending == .clean)
    }

    @Test func negativeAndLargeIntegersRoundTrip() {
        let values: [Int64] = [0, 1, -1, 63, -64, 64, 1 << 40, .max, .min]
        let entries = values.map { StorageRecord.sessionReservation($0) }
        #expect(scan(framed(entries)).records == entries)
    }

    @Test func aRecordCutAtEveryOffsetIsATornTailAtItsStart() {
        let whole = framed(records)
        let lastStart = framed(Array(records.dropLast())).count
        for cut in lastStart..<whole.count {
            let result = scan(Array(whole[..<cut]))
            #expect(result.records == Array(records.dropLast()), "cut at \(cut)")
            if cut == lastStart {
                #expect(result.ending == .clean)
            } else {
                guard case .torn(let offset, _)? = result.ending else {
                    Issue.record("cut at \(cut): \(String(describing: result.ending))")
                    continue
                }
                #expect(offset == lastStart)
            }
        }
    }

    @Test func aLastRecordWithABadChecksumIsTorn() {
        var bytes = framed(records)
        bytes[bytes.count - 1] ^= 0xFF
        let result = scan(bytes)
        #expect(result.records == Array(records.dropLast()))
        guard case .torn? = result.ending else {
            Issue.record("\(String(describing: result.ending))")
            return
        }
    }

    @Test func zerosAfterTheLastRecordAreTorn() {
        let result = scan(framed(records) + [UInt8](repeating: 0, count: 4_096))
        #expect(result.records == records)
        guard case .torn(let offset, _)? = result.ending else {
            Issue.record("\(String(describing: result.ending))")
            return
        }
        #expect(offset == framed(records).count)
    }

    @Test func aDamagedRecordWithRecordsAfterItIsDamageNamingItsOffset() {
        var bytes = framed(records)
        let secondStart = framed(Array(records.prefix(1))).count
        bytes[secondStart + RecordFraming.headerBytes + 3] ^= 0x01
        let result = scan(bytes)
        #expect(result.records == Array(records.prefix(1)))
        #expect(result.ending.map { if case .damaged(let offset, _) = $0 { offset } else { -1 } } == secondStart)
    }
}
