import Testing

@testable import ObservatoryHTTP

@Suite struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func abcHashesToTheFIPSValue() {
        #expect(hex(SHA1.hash(bytes("abc"))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func theFourHundredFortyEightBitMessageHashesToTheFIPSValue() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(hex(SHA1.hash(bytes(message))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func oneMillionAsHashToTheFIPSValue() {
        #expect(
            hex(SHA1.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func theEmptyMessageHashesToTheFIPSValue() {
        #expect(hex(SHA1.hash([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func feedingInPiecesGivesTheSameDigest() {
        let message = bytes(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 7))
        let whole = SHA1.hash(message)
        for pieceSize in [1, 3, 55, 56, 63, 64, 65] {
            var hash = SHA1()
            var start = 0
            while start < message.count {
                hash.update(message[start..<min(message.count, start + pieceSize)])
                start += pieceSize
            }
            #expect(hash.finalize() == whole, "\(pieceSize)")
        }
    }

    @Test func messagesAroundTheBlockEdgeAreHashedDistinctly() {
        // 55, 56 and 64 bytes: padding fits, just does not fit, and a whole block.
        let digests = [55, 56, 63, 64].map { SHA1.hash(repeatElement(UInt8(ascii: "a"), count: $0)) }
        #expect(Set(digests.map(hex)).count == 4)
        #expect(hex(digests[3]) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }
}
