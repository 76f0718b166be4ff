import Testing

@testable import ObservatoryServer

/// The table-driven CRC-32C gives the checksum of its bit-by-bit definition for
/// every length and alignment, so files written before and after read alike.
@Suite struct CRC32CTests {
    /// CRC-32C one bit at a time, straight from its definition (reversed Castagnoli polynomial).
    private static func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func everyLengthAndStartGivesTheBitwiseChecksum() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        for start in 0..<9 {
            for length in 0...(bytes.count - start) {
                let slice = bytes[start..<(start + length)]
                let fast = slice.withUnsafeBytes { CRC32C.checksum($0) }
                #expect(fast == Self.bitwise(slice), "start \(start), length \(length)")
            }
        }
    }

    @Test func knownVectorsKeepTheirValues() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0..<32)) == 0x46DD_794E)
    }
}
