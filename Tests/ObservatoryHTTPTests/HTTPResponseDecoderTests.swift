import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPResponseDecoderTests {
    private let okWithLength =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
    private let chunkedStream =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "9\r\n{\"a\":1}\r\n\r\n" + "9\r\n{\"b\":2}\r\n\r\n" + "0\r\n\r\n"

    private func failure(
        _ input: String, finish: Bool = false, decoder: HTTPResponseDecoder = HTTPResponseDecoder()
    ) -> HTTPError? {
        thrownError { () throws(HTTPError) in try decodeResponses(bytes(input), finish: finish, decoder: decoder) }
    }

    @Test func aResponseWithContentLengthHasItsHeadBodyAndEnd() throws {
        let result = try decodeResponses(bytes(okWithLength))
        #expect(result.heads.count == 1)
        let head = try #require(result.heads.first)
        #expect(head.status == .ok)
        #expect(head.status.reasonPhrase == "OK")
        #expect(head.version == .http1Point1)
        #expect(head.headers["content-type"] == "application/json")
        #expect(head.keepAlive)
        #expect(result.bodies == ["{\"ok\":true}"])
    }

    @Test func byteByByteGivesTheSameResponsesAsOnePiece() throws {
        let input = bytes(okWithLength + chunkedStream + okWithLength)
        let whole = try decodeResponses(input)
        let single = try decodeResponses(input, pieceSize: 1)
        let sevens = try decodeResponses(input, pieceSize: 7)
        #expect(whole.bodies == ["{\"ok\":true}", "{\"a\":1}\r\n{\"b\":2}\r\n", "{\"ok\":true}"])
        #expect(single.heads == whole.heads && single.bodies == whole.bodies)
        #expect(sevens.heads == whole.heads && sevens.bodies == whole.bodies)
    }

    @Test func chunkedBodyPiecesComeOutAsEachChunkArrives() throws {
        var decoder = HTTPResponseDecoder()
        decoder.append(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{\"a\":1}\r\n\r\n"))
        guard case .head = try decoder.next() else {
            Issue.record("no head")
            return
        }
        #expect(try decoder.next() == .body(bytes("{\"a\":1}\r\n")))
        #expect(try decoder.next() == nil)
        decoder.append(bytes("9\r\n{\"b\":2}\r\n\r\n"))
        #expect(try decoder.next() == .body(bytes("{\"b\":2}\r\n")))
        #expect(try decoder.next() == nil)
    }

    @Test func aBodyOfDeclaredLengthIsHandedOutAsItArrives() throws {
        var decoder = HTTPResponseDecoder()
        decoder.append(bytes("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc"))
        _ = try decoder.next()
        #expect(try decoder.next() == .body(bytes("abc")))
        #expect(try decoder.next() == nil)
        decoder.append(bytes("defHTTP"))
        #expect(try decoder.next() == .body(bytes("def")))
        #expect(try decoder.next() == .end)
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 4)
    }

    @Test func aBodyWithoutLengthEndsWhenTheConnectionCloses() throws {
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it")
        let open = try decodeResponses(input)
        #expect(open.heads.count == 1 && open.bodies.isEmpty)
        let closed = try decodeResponses(input, pieceSize: 3, finish: true)
        #expect(closed.bodies == ["all of it"])
    }

    @Test func aTransferCodingOtherThanChunkedLastIsReadUntilClose() throws {
        let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nabcdef")
        #expect(try decodeResponses(input, finish: true).bodies == ["abcdef"])
    }

    @Test func transferEncodingWinsOverContentLength() throws {
        let input = bytes(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        #expect(try decodeResponses(input).bodies == ["x"])
    }

    @Test func responsesToHeadRequestsHaveNoBodyWhateverTheirLength() throws {
        var decoder = HTTPResponseDecoder()
        decoder.requestSent(method: "HEAD")
        decoder.requestSent(method: "GET")
        let input = bytes(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let result = try decodeResponses(input, decoder: decoder)
        #expect(result.bodies == ["", "hello"])
    }

    @Test func noContentNotModifiedAndInterimResponsesHaveNoBody() throws {
        let input = bytes(
            "HTTP/1.1 100 Continue\r\n\r\n" + "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n"
                + "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let result = try decodeResponses(input, pieceSize: 1)
        #expect(result.heads.map(\.status.code) == [100, 204, 304, 200])
        #expect(result.bodies == ["", "", "", "ok"])
    }

    @Test func aFinalResponseAfterAnInterimOneAnswersTheHeadRequest() throws {
        var decoder = HTTPResponseDecoder()
        decoder.requestSent(method: "HEAD")
        let input = bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
        #expect(try decodeResponses(input, decoder: decoder).bodies == ["", ""])
    }

    @Test func afterSwitchingProtocolsTheRestBelongsToTheNewProtocol() throws {
        var decoder = HTTPResponseDecoder()
        decoder.append(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\u{81}\u{0}"))
        guard case .head(let head) = try decoder.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.status == .switchingProtocols)
        #expect(try decoder.next() == .end)
        #expect(try decoder.next() == nil)
        #expect(decoder.takeUpgradedBytes() == [0xC2, 0x81, 0x00])
    }

    @Test func theReasonPhraseMayBeEmptyOrMissing() throws {
        let input = bytes("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\nHTTP/1.0 404\r\nContent-Length: 0\r\n\r\n")
        let result = try decodeResponses(input)
        #expect(
            result.heads.map(\.status.code) == [200, 404])
        #expect(result.heads.map(\.status.reasonPhrase) == ["", ""])
        #expect(result.heads.last?.version == .http1Point0)
        #expect(result.heads.last?.keepAlive == false)
    }

    @Test func aMalformedStatusLineIsRejected() {
        for line in [
            "HTTP/2 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1  200 OK", "ICY 200 OK",
            "HTTP/1.1 099 Low", "HTTP/1.1 200 O\u{1}K",
        ] {
            let error = failure(line + "\r\n\r\n")
            #expect(error?.code == .invalidStatusLine, "\(line)")
            #expect(error?.status == nil)
        }
    }

    @Test func malformedHeaderLinesAreRejected() {
        #expect(failure("HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n")?.code == .invalidHeader)
        #expect(failure("HTTP/1.1 200 OK\r\nA: 1\r\n folded\r\n\r\n")?.code == .invalidHeader)
        #expect(failure("HTTP/1.1 200 OK\r\nName : v\r\n\r\n")?.code == .invalidHeader)
        #expect(failure("HTTP/1.1 200 OK\r\nA: 1\n\r\n")?.code == .invalidLineEnding)
    }

    @Test func contentLengthsMustBeOneDecimalNumber() {
        let head = "HTTP/1.1 200 OK\r\n"
        #expect(failure(head + "Content-Length: 1x\r\n\r\n")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: -1\r\n\r\n")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length:\r\n\r\n")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: 1\r\nContent-Length: 2\r\n\r\n")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: 2, 2\r\nContent-Length: 2\r\n\r\nab") == nil)
    }

    @Test func theHeadLimitHoldsAtItsEdge() {
        let start = "HTTP/1.1 200 OK\r\nX: "
        let end = "\r\nContent-Length: 0\r\n\r\n"
        let filler = String(repeating: "a", count: 100 - start.utf8.count - end.utf8.count)
        let decoder = HTTPResponseDecoder(maxHeadBytes: 100)
        #expect(failure(start + filler + end, decoder: decoder) == nil)
        #expect(failure(start + filler + "a" + end, decoder: decoder)?.code == .headTooLarge)
        // An unfinished head over the limit fails before its end arrives.
        #expect(failure(start + String(repeating: "a", count: 100), decoder: decoder)?.code == .headTooLarge)
    }

    @Test func theBodyLimitHoldsAtItsEdgeForEveryFraming() {
        let decoder = HTTPResponseDecoder(bodyLimits: ChunkedBodyLimits(maxBodyBytes: 4))
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd", decoder: decoder) == nil)
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", decoder: decoder)?.code == .bodyTooLarge)
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(failure(chunked + "4\r\nabcd\r\n0\r\n\r\n", decoder: decoder) == nil)
        #expect(failure(chunked + "4\r\nabcd\r\n1\r\n", decoder: decoder)?.code == .bodyTooLarge)
        let untilClose = "HTTP/1.1 200 OK\r\n\r\n"
        #expect(failure(untilClose + "abcd", finish: true, decoder: decoder) == nil)
        #expect(failure(untilClose + "abcde", finish: true, decoder: decoder)?.code == .bodyTooLarge)
    }

    @Test func aResponseCutShortByTheCloseIsAnUnexpectedEnd() {
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc", finish: true)?.code == .unexpectedEnd)
        #expect(
            failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", finish: true)?.code
                == .unexpectedEnd)
        #expect(failure("HTTP/1.1 200 OK\r\nContent-", finish: true)?.code == .unexpectedEnd)
        #expect(failure(okWithLength, finish: true) == nil)
    }

    @Test func afterAFailureTheDecoderKeepsFailing() {
        var decoder = HTTPResponseDecoder()
        decoder.append(bytes("junk\r\n\r\n"))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidStatusLine)
        decoder.append(bytes(okWithLength))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidStatusLine)
    }
}
