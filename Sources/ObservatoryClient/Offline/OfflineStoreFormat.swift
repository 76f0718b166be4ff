import Foundation

/// How the offline store's file is laid out, as pure functions: a header that
/// names the format, the payload's length and its checksum, then the payload
/// (the entries as one JSON array).
///
///     "observatory offline store 1\n"   28 bytes, names the format
///     length                            8 bytes, big-endian
///     checksum                          8 bytes, big-endian FNV-1a 64 of the payload
///     payload                           `length` bytes of JSON
///
/// A file that does not start with the name is foreign; one shorter than its
/// header says is torn; one whose checksum or JSON does not match is damaged.
/// None of them is ever read as valid.
enum OfflineStoreFormat {
    /// Why a file is not a valid store.
    enum Flaw: Error, Equatable, CustomStringConvertible {
        /// It is not an offline store of this format.
        case foreign
        /// It ends before its payload does (a write cut short).
        case torn(missing: Int)
        /// Its bytes do not match the checksum, or do not decode.
        case damaged(String)

        /// What is wrong with the file, for the error message.
        var description: String {
            switch self {
            case .foreign: "it is not an Observatory offline store"
            case .torn(let missing): "it ends \(missing) bytes early (a write was cut short)"
            case .damaged(let detail): "it is damaged (\(detail))"
            }
        }
    }

    /// The bytes every store file starts with.
    static let magic = Array("observatory offline store 1\n".utf8)
    /// The length of the header: the magic, the length and the checksum.
    static let headerLength = magic.count + 16

    /// One entry's payload bytes, as they sit in the array.
    static func encode(_ entry: OfflineEntry) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // An entry holds strings, integers and JSON values only, which always encode.
        return (try? Array(encoder.encode(entry))) ?? []
    }

    /// The size of a file holding `count` entries of `entryBytes` bytes in all.
    static func fileSize(entryBytes: Int, count: Int) -> Int {
        headerLength + 2 + entryBytes + max(count - 1, 0)
    }

    /// The file for entries already encoded with ``encode(_:)``.
    static func file(encodedEntries: [[UInt8]]) -> [UInt8] {
        var payload: [UInt8] = [UInt8(ascii: "[")]
        for (index, entry) in encodedEntries.enumerated() {
            if index > 0 { payload.append(UInt8(ascii: ",")) }
            payload.append(contentsOf: entry)
        }
        payload.append(UInt8(ascii: "]"))
        var file = magic
        file.reserveCapacity(headerLength + payload.count)
        appendBigEndian(UInt64(payload.count), to: &file)
        appendBigEndian(checksum(payload), to: &file)
        file.append(contentsOf: payload)
        return file
    }

    /// The entries of a file, or why it is not a valid store.
    static func decode(_ file: [UInt8]) -> Result<[OfflineEntry], Flaw> {
        guard file.count >= magic.count, file.starts(with: magic) else { return .failure(.foreign) }
        guard file.count >= headerLength else { return .failure(.torn(missing: headerLength - file.count)) }
        let length = readBigEndian(file[magic.count..<magic.count + 8])
        let expected = readBigEndian(file[magic.count + 8..<headerLength])
        let payload = file[headerLength...]
        guard length <= UInt64(Int.max - headerLength) else { return .failure(.damaged("impossible length")) }
        if payload.count < Int(length) { return .failure(.torn(missing: Int(length) - payload.count)) }
        if payload.count > Int(length) { return .failure(.damaged("\(payload.count - Int(length)) bytes too many")) }
        guard checksum(payload) == expected else { return .failure(.damaged("checksum mismatch")) }
        do {
            return .success(try JSONDecoder().decode([OfflineEntry].self, from: Data(payload)))
        } catch {
            return .failure(.damaged("the entries do not decode: \(error)"))
        }
    }

    /// FNV-1a, 64 bits: enough to tell a damaged payload from a whole one.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
