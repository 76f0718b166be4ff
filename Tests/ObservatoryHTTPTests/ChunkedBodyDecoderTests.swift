import Testing

@testable import ObservatoryHTTP

@Suite struct ChunkedBodyDecoderTests {
    /// The body and whether the end came, feeding `input` in pieces of `pieceSize`.
    private func decode(
        _ input: String, pieceSize: Int? = nil, limits: ChunkedBodyLimits = ChunkedBodyLimits()
    ) throws(HTTPError) -> (body: String, pieces: Int, ended: Bool) {
        var decoder = ChunkedBodyDecoder(limits: limits)
        let all = bytes(input)
        var body: [UInt8] = []
        var pieces = 0
        var ended = false
        let step = pieceSize ?? max(1, all.count)
        var start = 0
        while start < all.count {
            decoder.append(all[start..<min(all.count, start + step)])
            while let part = try decoder.next() {
                switch part {
                case .data(let data):
                    body += data
                    pieces += 1
                case .end:
                    ended = true
                }
            }
            start += step
        }
        return (text(body), pieces, ended)
    }

    private func failure(_ input: String, limits: ChunkedBodyLimits = ChunkedBodyLimits()) -> HTTPError? {
        thrownError { () throws(HTTPError) in try decode(input, limits: limits) }
    }

    @Test func chunksJoinIntoTheBodyAndTheLastChunkEndsIt() throws {
        let result = try decode("5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n")
        #expect(result.body == "hello, world")
        #expect(result.pieces == 2)
        #expect(result.ended)
    }

    @Test func byteByByteGivesTheSameBodyAsOnePiece() throws {
        let input = "5\r\nhello\r\nA;name=value\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n"
        let whole = try decode(input)
        let single = try decode(input, pieceSize: 1)
        #expect(whole.body == "hello0123456789" && whole.ended)
        #expect(single.body == whole.body && single.ended)
    }

    @Test func dataIsHandedOutBeforeItsChunkIsComplete() throws {
        var decoder = ChunkedBodyDecoder()
        decoder.append(bytes("a\r\nabc"))
        #expect(try decoder.next() == .data(bytes("abc")))
        #expect(try decoder.next() == nil)
        decoder.append(bytes("defghij\r\n"))
        #expect(try decoder.next() == .data(bytes("defghij")))
        #expect(try decoder.next() == nil)
    }

    @Test func extensionsAndTrailersAreIgnored() throws {
        let result = try decode("3 ; a=b;c\r\nabc\r\n0;last\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n")
        #expect(result.body == "abc" && result.ended)
    }

    @Test func upperAndLowerCaseHexDigitsAreSizes() throws {
        let body = String(repeating: "x", count: 0xAB)
        #expect(try decode("aB\r\n\(body)\r\n0\r\n\r\n").body == body)
    }

    @Test func bytesAfterTheEndStayBuffered() throws {
        var decoder = ChunkedBodyDecoder()
        decoder.append(bytes("0\r\n\r\nHTTP/1.1"))
        #expect(try decoder.next() == .end)
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 8)
    }

    @Test func aSizeThatIsNotHexadecimalIsAnInvalidChunk() {
        #expect(failure("x\r\n")?.code == .invalidChunk)
        #expect(failure("\r\n")?.code == .invalidChunk)
        #expect(failure("-1\r\n")?.code == .invalidChunk)
        #expect(failure("5x\r\nhello\r\n")?.code == .invalidChunk)
        #expect(failure("0x5\r\nhello\r\n")?.code == .invalidChunk)
        #expect(failure("x\r\n")?.status == .badRequest)
    }

    @Test func aSizeWithSixteenDigitsIsRejectedBeforeItOverflows() {
        #expect(failure("FFFFFFFFFFFFFFFF\r\n")?.code == .invalidChunk)
        #expect(failure("000000000000001\r\nx\r\n0\r\n\r\n") == nil)
    }

    @Test func dataNotFollowedByCarriageReturnLineFeedIsAnInvalidChunk() {
        #expect(failure("3\r\nabcd\r\n")?.code == .invalidChunk)
        #expect(failure("3\r\nabc\n0\r\n\r\n")?.code == .invalidChunk)
    }

    @Test func aBareLineFeedAfterTheSizeIsAnInvalidChunk() {
        #expect(failure("3\nabc\r\n")?.code == .invalidChunk)
        #expect(failure("0\r\nTrailer: x\n\r\n")?.code == .invalidChunk)
    }

    @Test func aControlByteInAnExtensionIsAnInvalidChunk() {
        #expect(failure("3;\u{1}\r\nabc\r\n")?.code == .invalidChunk)
    }

    @Test func theSizeLineLimitHoldsAtItsEdge() {
        let limits = ChunkedBodyLimits(maxSizeLineBytes: 8)
        // "3;abcd" + CR LF is 8 bytes: at the limit.
        #expect(failure("3;abcd\r\nabc\r\n0\r\n\r\n", limits: limits) == nil)
        #expect(failure("3;abcde\r\nabc\r\n0\r\n\r\n", limits: limits)?.code == .invalidChunk)
        // An unfinished line over the limit fails before its LF arrives.
        #expect(failure("3;abcdefgh", limits: limits)?.code == .invalidChunk)
    }

    @Test func theBodyLimitHoldsAtItsEdgeBeforeTheDataIsBuffered() {
        let limits = ChunkedBodyLimits(maxBodyBytes: 5)
        #expect(failure("2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n", limits: limits) == nil)
        let over = failure("2\r\nab\r\n4\r\n", limits: limits)
        #expect(over?.code == .bodyTooLarge)
        #expect(over?.status == .contentTooLarge)
    }

    @Test func theTrailerLimitHoldsAtItsEdge() {
        let limits = ChunkedBodyLimits(maxTrailerBytes: 10)
        // "X-A: 12" CR LF CR LF is 11 bytes; "X-A: 1" CR LF CR LF is 10.
        #expect(failure("0\r\nX-A: 1\r\n\r\n", limits: limits) == nil)
        let over = failure("0\r\nX-A: 12\r\n\r\n", limits: limits)
        #expect(over?.code == .headTooLarge)
        #expect(over?.status == .requestHeaderFieldsTooLarge)
    }

    @Test func afterAFailureTheDecoderKeepsFailing() {
        var decoder = ChunkedBodyDecoder()
        decoder.append(bytes("zz\r\n"))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidChunk)
        decoder.append(bytes("0\r\n\r\n"))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidChunk)
    }
}
