import ObservatoryWire

// The payload of a `batch` record, and the results a remembered batch keeps.
extension StorageRecord {
    /// Writes a batch's revision, then each of its records as a length and its payload.
    static func writeBatch(revision: Int64, _ records: [StorageRecord], into buffer: inout [UInt8]) {
        RecordEncoding.write(revision, into: &buffer)
        RecordEncoding.writeUnsigned(UInt64(records.count), into: &buffer)
        for record in records {
            let payload = record.encoded()
            RecordEncoding.writeUnsigned(UInt64(payload.count), into: &buffer)
            buffer.append(contentsOf: payload)
        }
    }

    /// Reads what `writeBatch` wrote: only `set`, `delete` and `appliedWrite`
    /// records at the batch's revision belong in it.
    static func decodeBatch(_ reader: inout RecordReader, strings: inout StringInterner)
        throws(RecordDecodingError) -> StorageRecord
    {
        let revision = try reader.integer()
        let count = try reader.unsigned()
        var records: [StorageRecord] = []
        for _ in 0..<count {
            let record = try decode(try reader.field(), strings: &strings)
            switch record {
            case .set, .delete:
                guard record.revision == revision else {
                    throw RecordDecodingError("a change of batch \(revision) at another revision")
                }
            case .appliedWrite, .expiry:
                break
            default:
                throw RecordDecodingError("a record that does not belong in a batch")
            }
            records.append(record)
        }
        return .batch(revision: revision, records)
    }

    /// Writes the results of a remembered batch: their count, then each key,
    /// version and whether it changed (0 no, 1 yes, 2 not said).
    static func write(_ results: [BatchResult], into buffer: inout [UInt8]) {
        RecordEncoding.writeUnsigned(UInt64(results.count), into: &buffer)
        for result in results {
            RecordEncoding.write(result.key, into: &buffer)
            RecordEncoding.write(result.version, into: &buffer)
            buffer.append(result.changed.map { $0 ? 1 : 0 } ?? 2)
        }
    }

    /// Reads what `write(_:into:)` wrote.
    static func batchResults(_ reader: inout RecordReader) throws(RecordDecodingError) -> [BatchResult] {
        let count = try reader.unsigned()
        var results: [BatchResult] = []
        for _ in 0..<count {
            let key = try reader.string()
            let version = try reader.integer()
            let changed: Bool?
            switch try reader.byte() {
            case 0: changed = false
            case 1: changed = true
            case 2: changed = nil
            case let other: throw RecordDecodingError("unknown batch result flag \(other)")
            }
            results.append(BatchResult(key: key, version: version, changed: changed))
        }
        return results
    }
}
