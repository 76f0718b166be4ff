import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPRequestLineTests {
    private func classify(_ text: String) -> HTTPRequestLine.Classification {
        HTTPRequestLine.classify(bytes(text))
    }

    @Test func requestLinesOfVersionOnePointOneAndOnePointZeroAreHTTP() {
        #expect(classify("GET / HTTP/1.1\r\n") == .http)
        #expect(classify("POST /v1/keys/a%20b?x=1 HTTP/1.0\r\nHost: a\r\n") == .http)
        #expect(classify("PROPFIND * HTTP/1.1\r\n") == .http)
    }

    @Test func aRequestLineEndingInABareLineFeedIsStillHTTP() {
        #expect(classify("GET / HTTP/1.1\n") == .http)
    }

    @Test func lineProtocolFramesAreNotHTTP() {
        #expect(classify("{\"op\":\"hello\"}\n") == .lineProtocol)
        #expect(classify("hello world\n") == .lineProtocol)
        #expect(classify("\n") == .lineProtocol)
        #expect(classify(" GET / HTTP/1.1\r\n") == .lineProtocol)
    }

    @Test func theFirstByteDecidesWhenItCannotStartAMethod() {
        #expect(classify("{") == .lineProtocol)
        #expect(classify("h") == .lineProtocol)
        #expect(classify("[") == .lineProtocol)
        #expect(classify("G") == .needMoreBytes)
        #expect(classify("") == .needMoreBytes)
    }

    @Test func anyDepartureFromTheShapeIsLineProtocol() {
        for line in [
            "Get / HTTP/1.1\r\n", "GET  / HTTP/1.1\r\n", "GET / HTTP/1.2\r\n", "GET / HTTP/2\r\n",
            "GET / HTTP/1.1 \r\n", "GET / HTTP/1.1\rx", "GET /a\tb HTTP/1.1\r\n", "GET /\r\n", "HELLO world\n",
            "GET1 / HTTP/1.1\r\n", "GET / http/1.1\r\n",
        ] {
            #expect(classify(line) == .lineProtocol, "\(line)")
        }
    }

    @Test func everyPrefixOfARequestLineNeedsMoreBytes() {
        let line = "DELETE /v1/keys/sky HTTP/1.1\r\n"
        for length in 1..<(line.utf8.count - 1) {
            #expect(HTTPRequestLine.classify(bytes(line).prefix(length)) == .needMoreBytes, "\(length)")
        }
        #expect(classify(line) == .http)
    }

    @Test func anOverlongRequestLineIsHTTPSoItGets431() {
        let long = "GET /" + String(repeating: "a", count: HTTPRequestLine.maxLineBytes)
        #expect(classify(long) == .http)
        let justUnder = "GET /" + String(repeating: "a", count: HTTPRequestLine.maxLineBytes - 6)
        #expect(classify(justUnder) == .needMoreBytes)
        #expect(classify(String(repeating: "A", count: HTTPRequestLine.maxLineBytes + 1)) == .lineProtocol)
    }
}
