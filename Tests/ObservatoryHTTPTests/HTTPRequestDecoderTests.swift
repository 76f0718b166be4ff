import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPRequestDecoderTests {
    private struct Decoded: Equatable {
        var heads: [HTTPRequestHead] = []
        var bodies: [String] = []
    }

    private func decode(
        _ input: String, pieceSize: Int? = nil, finish: Bool = false,
        decoder: HTTPRequestDecoder = HTTPRequestDecoder()
    ) throws(HTTPError) -> Decoded {
        var decoder = decoder
        var result = Decoded()
        var body: [UInt8] = []
        let all = bytes(input)
        let step = pieceSize ?? max(1, all.count)
        var start = 0
        func drain() throws(HTTPError) {
            while let part = try decoder.next() {
                switch part {
                case .head(let head): result.heads.append(head)
                case .body(let piece): body += piece
                case .end:
                    result.bodies.append(text(body))
                    body = []
                }
            }
        }
        while start < all.count {
            decoder.append(all[start..<min(all.count, start + step)])
            try drain()
            start += step
        }
        if finish {
            decoder.finish()
            try drain()
        }
        return result
    }

    private func failure(
        _ input: String, finish: Bool = false, decoder: HTTPRequestDecoder = HTTPRequestDecoder()
    ) -> HTTPError? {
        thrownError { () throws(HTTPError) in try decode(input, finish: finish, decoder: decoder) }
    }

    private let pipelined =
        "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
        + "PUT /v1/keys/sky HTTP/1.1\r\nHost: a\r\nContent-Length: 7\r\n\r\n\"blue\"\n"
        + "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;e=1\r\nde\r\n0\r\nT: 1\r\n\r\n"
        + "DELETE /v1/keys/sky HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"

    @Test func aRequestHasItsMethodTargetVersionAndHeaders() throws {
        let result = try decode("GET /v1/keys?prefix=a HTTP/1.1\r\nHost: h\r\nAccept:  */*  \r\n\r\n")
        let head = try #require(result.heads.first)
        #expect(head.method == "GET" && head.target == "/v1/keys?prefix=a" && head.version == .http1Point1)
        #expect(head.headers["accept"] == "*/*")
        #expect(head.keepAlive)
        #expect(result.bodies == [""])
    }

    @Test func pipelinedRequestsComeOutInOrderHoweverTheBytesArrive() throws {
        let whole = try decode(pipelined)
        #expect(whole.heads.map(\.method) == ["GET", "PUT", "POST", "DELETE"])
        #expect(whole.bodies == ["", "\"blue\"\n", "abcde", ""])
        #expect(whole.heads.map(\.keepAlive) == [true, true, true, true])
        #expect(try decode(pipelined, pieceSize: 1) == whole)
        #expect(try decode(pipelined, pieceSize: 5) == whole)
    }

    @Test func keepAliveFollowsVersionAndConnection() throws {
        let result = try decode(
            "GET / HTTP/1.0\r\n\r\nGET / HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\nConnection: Upgrade\r\n\r\n"
        )
        #expect(result.heads.map(\.keepAlive) == [false, false, true])
    }

    @Test func emptyLinesBeforeARequestAreIgnored() throws {
        #expect(try decode("\r\n\r\nGET / HTTP/1.1\r\n\r\n", pieceSize: 1).heads.count == 1)
    }

    @Test func theDecoderIsIdleOnlyBetweenRequests() throws {
        var decoder = HTTPRequestDecoder()
        #expect(decoder.isIdle)
        decoder.append(bytes("GET / HTTP/1.1\r\n"))
        #expect(try decoder.next() == nil)
        #expect(!decoder.isIdle)
        decoder.append(bytes("\r\n"))
        _ = try decoder.next()
        #expect(try decoder.next() == .end)
        #expect(decoder.isIdle)
    }

    @Test func malformedRequestLinesAre400() {
        for line in [
            "GET /", "GET  / HTTP/1.1", "GET / HTTP/1.1 ", "GET /a b HTTP/1.1", " GET / HTTP/1.1",
            "G(T / HTTP/1.1", "GET / http/1.1", "GET / HTTP/1.10", "GET \u{7F} HTTP/1.1",
        ] {
            let error = failure(line + "\r\n\r\n")
            #expect(error?.code == .invalidRequestLine, "\(line)")
            #expect(error?.status == .badRequest)
        }
    }

    @Test func otherHTTPVersionsAre505() {
        for version in ["HTTP/1.2", "HTTP/2.0", "HTTP/0.9"] {
            let error = failure("GET / \(version)\r\n\r\n")
            #expect(error?.code == .unsupportedVersion, "\(version)")
            #expect(error?.status == .httpVersionNotSupported)
        }
    }

    @Test func bareLineFeedsAre400() {
        #expect(failure("GET / HTTP/1.1\n\r\n")?.code == .invalidLineEnding)
        #expect(failure("GET / HTTP/1.1\r\nHost: a\n\r\n")?.code == .invalidLineEnding)
        #expect(failure("GET / HTTP/1.1\r\nHost: a\r\n\n")?.code == .invalidLineEnding)
        #expect(failure("GET / HTTP/1.1\n\n")?.status == .badRequest)
    }

    @Test func malformedHeadersAre400() {
        let cases = [
            "Host: a\r\n folded": "obs-fold",
            "Host: a\r\n\tfolded": "obs-fold with tab",
            "Host : a": "space before colon",
            "Host\t: a": "tab before colon",
            "Ho(st: a": "not a token",
            ": a": "empty name",
            "Host a": "no colon",
            "Host: a\u{0}b": "NUL in value",
            "Host: a\rb": "bare CR in value",
        ]
        for (line, reason) in cases {
            let error = failure("GET / HTTP/1.1\r\n\(line)\r\n\r\n")
            #expect(error?.code == .invalidHeader, "\(reason)")
            #expect(error?.status == .badRequest, "\(reason)")
        }
    }

    @Test func valuesMayHoldTabsAndBytesAbove127() throws {
        let result = try decode("GET / HTTP/1.1\r\nX: a\tb \u{E9}\r\n\r\n")
        #expect(result.heads.first?.headers["x"] == "a\tb \u{E9}")
    }

    @Test func foldedLinesAreRefusedAsFolding() {
        let error = failure("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n")
        #expect(error?.message.contains("folding") == true)
    }

    @Test func bothContentLengthAndTransferEncodingAre400() {
        let error = failure("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(error?.code == .conflictingFraming)
        #expect(error?.status == .badRequest)
    }

    @Test func conflictingOrInvalidContentLengthsAre400() {
        let head = "POST / HTTP/1.1\r\n"
        #expect(failure(head + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: 3, 4\r\n\r\nabcd")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: +3\r\n\r\nabc")?.code == .invalidContentLength)
        #expect(failure(head + "Content-Length: 0x3\r\n\r\nabc")?.status == .badRequest)
        #expect(failure(head + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc") == nil)
    }

    @Test func transferCodingsOtherThanChunkedAre501() {
        for coding in ["gzip", "gzip, chunked", "identity"] {
            let error = failure("POST / HTTP/1.1\r\nTransfer-Encoding: \(coding)\r\n\r\n")
            #expect(error?.code == .unsupportedTransferCoding, "\(coding)")
            #expect(error?.status == .notImplemented)
        }
    }

    @Test func chunkedTwiceOrAnEmptyTransferEncodingIs400() {
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n")?.code == .invalidHeader)
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: \r\n\r\n")?.status == .badRequest)
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n") == nil)
    }

    @Test func badChunkSizesAre400() {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        for body in ["g\r\n", "\r\n", "3\r\nabcX\r\n", "1 1\r\nx\r\n"] {
            let error = failure(head + body)
            #expect(error?.code == .invalidChunk, "\(body)")
            #expect(error?.status == .badRequest)
        }
    }

    @Test func theHeadLimitIs431AtItsEdge() {
        let decoder = HTTPRequestDecoder(maxHeadBytes: 64)
        let start = "GET / HTTP/1.1\r\nX: "
        let filler = String(repeating: "a", count: 64 - start.utf8.count - 4)
        #expect(failure(start + filler + "\r\n\r\n", decoder: decoder) == nil)
        let over = failure(start + filler + "a\r\n\r\n", decoder: decoder)
        #expect(over?.code == .headTooLarge)
        #expect(over?.status == .requestHeaderFieldsTooLarge)
        // Without any line end: fails as soon as the limit is passed.
        #expect(
            failure("GET /" + String(repeating: "a", count: 64), decoder: decoder)?.status
                == .requestHeaderFieldsTooLarge)
    }

    @Test func theDefaultHeadLimitIsSixteenKibibytes() {
        let start = "GET / HTTP/1.1\r\nX: "
        let filler = String(repeating: "a", count: 16384 - start.utf8.count - 4)
        #expect(failure(start + filler + "\r\n\r\n") == nil)
        #expect(failure(start + filler + "a\r\n\r\n")?.status == .requestHeaderFieldsTooLarge)
    }

    @Test func theBodyLimitIs413AtItsEdgeForBothFramings() {
        let decoder = HTTPRequestDecoder(maxBodyBytes: 4)
        #expect(failure("PUT / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", decoder: decoder) == nil)
        let over = failure("PUT / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", decoder: decoder)
        #expect(over?.code == .bodyTooLarge)
        #expect(over?.status == .contentTooLarge)
        let chunked = "PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(failure(chunked + "2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", decoder: decoder) == nil)
        #expect(failure(chunked + "2\r\nab\r\n3\r\n", decoder: decoder)?.status == .contentTooLarge)
    }

    @Test func aRequestCutShortByTheCloseIsAnUnexpectedEnd() {
        #expect(failure("PUT / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab", finish: true)?.code == .unexpectedEnd)
        #expect(failure("GET / HTTP/1.1\r\nHo", finish: true)?.code == .unexpectedEnd)
        #expect(failure("GET / HTTP/1.1\r\n\r\n", finish: true) == nil)
    }

    @Test func afterAFailureTheDecoderStaysFailed() {
        var decoder = HTTPRequestDecoder()
        decoder.append(bytes("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n"))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidHeader)
        decoder.append(bytes("GET / HTTP/1.1\r\n\r\n"))
        #expect(thrownError { () throws(HTTPError) in try decoder.next() }?.code == .invalidHeader)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func bytesAfterAnUpgradeRequestCanBeTakenOver() throws {
        var decoder = HTTPRequestDecoder()
        decoder.append(bytes("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n") + [0x81, 0x80])
        guard case .head = try decoder.next() else {
            Issue.record("no head")
            return
        }
        #expect(try decoder.next() == .end)
        #expect(decoder.takeRemainingBytes() == [0x81, 0x80])
    }

    @Test func aRequestExpectingContinueSaysSo() throws {
        let result = try decode(
            "PUT /a HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx"
                + "PUT /b HTTP/1.1\r\nContent-Length: 1\r\n\r\ny" + "PUT /c HTTP/1.0\r\nExpect: 100-continue\r\n\r\n")
        #expect(result.heads.map(\.expectsContinue) == [true, false, false])
    }
}
