import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPRequestTests {
    @Test func aRequestWithABodyGetsItsContentLength() {
        var request = HTTPRequest(method: "POST", target: "/v3/kv/range", body: bytes("{\"key\":\"YQ==\"}"))
        request.headers.add(name: "Host", value: "127.0.0.1:2379")
        #expect(
            text(request.encoded())
                == "POST /v3/kv/range HTTP/1.1\r\nHost: 127.0.0.1:2379\r\nContent-Length: 14\r\n\r\n{\"key\":\"YQ==\"}")
    }

    @Test func aGetWithoutBodyHasNoContentLength() {
        let request = HTTPRequest(method: "GET", target: "/healthz", headers: ["Host": "x"])
        #expect(text(request.encoded()) == "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    @Test func anEmptyPostSaysItsLengthIsZero() {
        let request = HTTPRequest(method: "POST", target: "/", version: .http1Point0)
        #expect(text(request.encoded()) == "POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func nonASCIIInTheTargetIsPercentEncoded() {
        let request = HTTPRequest(method: "GET", target: "/v1/keys/caf\u{E9}")
        #expect(text(request.encoded()) == "GET /v1/keys/caf%C3%A9 HTTP/1.1\r\n\r\n")
    }

    @Test func headersThatFrameTheBodyAreLeftAsTheCallerWroteThem() {
        let request = HTTPRequest(
            method: "PUT", target: "/", headers: ["content-length": "3"], body: bytes("abc"))
        #expect(text(request.encoded()) == "PUT / HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc")
    }

    @Test func lineBreaksInValuesCannotInjectHeaders() {
        let request = HTTPRequest(
            method: "GET", target: "/a b\r\n", headers: ["X-Name": "evil\r\nInjected: yes"])
        #expect(text(request.encoded()) == "GET /a%20b%0D%0A HTTP/1.1\r\nX-Name: evil  Injected: yes\r\n\r\n")
    }
}

@Suite struct HTTPRequestRoundTripTests {
    @Test func anEncodedRequestDecodesToTheSameParts() throws {
        let request = HTTPRequest(
            method: "POST", target: "/v3/watch", headers: ["Host": "h", "Accept": "*/*"], body: bytes("{}"))
        var decoder = HTTPRequestDecoder()
        decoder.append(request.encoded())
        guard case .head(let head) = try decoder.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.method == "POST" && head.target == "/v3/watch" && head.headers["accept"] == "*/*")
        #expect(try decoder.next() == .body(bytes("{}")))
        #expect(try decoder.next() == .end)
    }
}
