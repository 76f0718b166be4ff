import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPResponseTests {
    @Test func aResponseHasItsStatusLineHeadersLengthAndBody() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: bytes("ok"))
        #expect(
            text(response.encoded()) == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
    }

    @Test func anEmptyBodyStillSaysItsLength() {
        #expect(
            text(HTTPResponse(status: .notFound).encoded()) == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func statusesWithoutBodyGetNeitherLengthNorBody() {
        let response = HTTPResponse(status: .noContent, body: bytes("ignored"))
        #expect(text(response.encoded()) == "HTTP/1.1 204 No Content\r\n\r\n")
        let switching = HTTPResponse(status: .switchingProtocols, headers: ["Upgrade": "websocket"])
        #expect(text(switching.encoded()) == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
    }

    @Test func aResponseToHeadHasTheLengthOfTheBodyButNotTheBody() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: bytes("hello"))
        #expect(
            text(response.encodedForHeadRequest())
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n")
        #expect(text(HTTPResponse(status: .noContent).encodedForHeadRequest()) == "HTTP/1.1 204 No Content\r\n\r\n")
    }

    @Test func theStatusesOfProtocolMdHaveTheirReasonPhrases() {
        let expected = [
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            409: "Conflict", 413: "Content Too Large", 426: "Upgrade Required", 429: "Too Many Requests",
            431: "Request Header Fields Too Large", 501: "Not Implemented", 503: "Service Unavailable",
            505: "HTTP Version Not Supported",
        ]
        for (code, phrase) in expected {
            #expect(HTTPStatus(code: code).reasonPhrase == phrase)
        }
        #expect(HTTPStatus(code: 299).reasonPhrase == "Unknown")
    }

    @Test func aStreamingHeadHasNoLength() {
        let head = HTTPResponseHead(
            status: .ok, headers: ["Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"])
        #expect(
            text(head.encoded())
                == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    @Test func anEncodedResponseDecodesToTheSameHeadAndBody() throws {
        let response = HTTPResponse(status: .conflict, headers: ["X-A": "1"], body: bytes("{\"error\":{}}"))
        let decoded = try decodeResponses(response.encoded())
        #expect(decoded.heads.first?.status == .conflict)
        #expect(decoded.heads.first?.headers["x-a"] == "1")
        #expect(decoded.bodies == ["{\"error\":{}}"])
    }

    @Test func injectedLineBreaksAreWrittenAsSpaces() {
        let response = HTTPResponse(status: HTTPStatus(code: 200, reasonPhrase: "OK\r\nX: 1"), headers: ["A": "b\nc"])
        #expect(text(response.encoded()) == "HTTP/1.1 200 OK  X: 1\r\nA: b c\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func statusesAreEqualByCodeWhateverTheirPhrase() {
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine") == .ok)
        #expect(Set([HTTPStatus(code: 404, reasonPhrase: "Nope"), .notFound]).count == 1)
        #expect(HTTPStatus(code: 201) != .ok)
    }

    @Test func theInterimContinueIsOneStatusLine() throws {
        #expect(text(HTTPResponseHead.continueBytes) == "HTTP/1.1 100 Continue\r\n\r\n")
        let decoded = try decodeResponses(HTTPResponseHead.continueBytes)
        #expect(decoded.heads.map(\.status) == [HTTPStatus(code: 100)])
    }
}
