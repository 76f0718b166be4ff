import Testing

@testable import ObservatoryHTTP

@Suite struct ChunkedBodyEncoderTests {
    @Test func aChunkHasItsHexadecimalSize() {
        #expect(text(ChunkedBodyEncoder.chunk(bytes("hello"))) == "5\r\nhello\r\n")
        let long = String(repeating: "x", count: 300)
        #expect(text(ChunkedBodyEncoder.chunk(bytes(long))) == "12c\r\n\(long)\r\n")
    }

    @Test func anEmptyChunkWritesNothingSoItCannotEndTheBody() {
        #expect(ChunkedBodyEncoder.chunk([UInt8]()).isEmpty)
    }

    @Test func encodedChunksDecodeToTheSameBody() throws {
        var stream: [UInt8] = []
        ChunkedBodyEncoder.appendChunk(bytes("data: a\n\n"), to: &stream)
        ChunkedBodyEncoder.appendChunk(bytes(": keepalive\n"), to: &stream)
        stream += ChunkedBodyEncoder.lastChunk
        var decoder = ChunkedBodyDecoder()
        decoder.append(stream)
        var body: [UInt8] = []
        var ended = false
        while let part = try decoder.next() {
            if case .data(let data) = part { body += data } else { ended = true }
        }
        #expect(text(body) == "data: a\n\n: keepalive\n")
        #expect(ended)
    }
}
