import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketHandshakeTests {
    private let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    private func upgrade(_ changes: (inout HTTPRequestHead) -> Void = { _ in }) -> HTTPRequestHead {
        var head = HTTPRequestHead(
            method: "GET", target: "/ws",
            headers: [
                "Host": "a", "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": sampleKey,
            ])
        changes(&head)
        return head
    }

    private func rejection(_ head: HTTPRequestHead) -> HTTPResponse? {
        if case .reject(let response, _) = WebSocketHandshake.respond(to: head) { return response }
        return nil
    }

    @Test func theRFCSampleKeyGivesTheRFCSampleAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: sampleKey) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func aValidUpgradeIsAnsweredWith101() {
        guard case .accept(let response) = WebSocketHandshake.respond(to: upgrade()) else {
            Issue.record("rejected")
            return
        }
        #expect(
            text(response.encoded())
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    }

    @Test func tokensMatchInAnyCaseAndInsideLists() {
        let head = upgrade {
            $0.headers.replace(name: "Upgrade", value: "WebSocket")
            $0.headers.replace(name: "Connection", value: "keep-alive, UPGRADE")
        }
        guard case .accept = WebSocketHandshake.respond(to: head) else {
            Issue.record("rejected")
            return
        }
    }

    @Test func aMethodOtherThanGetIs405() {
        let response = rejection(upgrade { $0.method = "POST" })
        #expect(response?.status == .methodNotAllowed)
        #expect(response?.headers["Allow"] == "GET")
    }

    @Test func missingUpgradeOrConnectionTokensAre400() {
        #expect(rejection(upgrade { $0.headers.remove(name: "Upgrade") })?.status == .badRequest)
        #expect(rejection(upgrade { $0.headers.replace(name: "Upgrade", value: "h2c") })?.status == .badRequest)
        #expect(
            rejection(upgrade { $0.headers.replace(name: "Connection", value: "keep-alive") })?.status == .badRequest)
        #expect(rejection(upgrade { $0.version = .http1Point0 })?.status == .badRequest)
    }

    @Test func aVersionOtherThan13Is426NamingVersion13() {
        for value in ["8", "14", ""] {
            let response = rejection(upgrade { $0.headers.replace(name: "Sec-WebSocket-Version", value: value) })
            #expect(response?.status == .upgradeRequired)
            #expect(response?.headers["Sec-WebSocket-Version"] == "13")
        }
        #expect(rejection(upgrade { $0.headers.remove(name: "Sec-WebSocket-Version") })?.status == .upgradeRequired)
    }

    @Test func aKeyThatIsNotBase64OfSixteenBytesIs400() {
        for key in ["", "abc", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZXg=", "!GhlIHNhbXBsZSBub25jZQ=="] {
            #expect(
                rejection(upgrade { $0.headers.replace(name: "Sec-WebSocket-Key", value: key) })?.status == .badRequest)
        }
        #expect(
            rejection(upgrade { $0.headers.add(name: "Sec-WebSocket-Key", value: sampleKey) })?.status == .badRequest)
    }

    @Test func aClientAcceptsOnlyTheRightAnswerToItsOwnKey() {
        let key = WebSocketHandshake.makeKey()
        #expect(Base64.decode(key)?.count == 16)
        var head = upgrade()
        head.headers.replace(name: "Sec-WebSocket-Key", value: key)
        guard case .accept(let response) = WebSocketHandshake.respond(to: head) else {
            Issue.record("rejected")
            return
        }
        #expect(WebSocketHandshake.accepts(response.head, key: key))
        #expect(!WebSocketHandshake.accepts(response.head, key: sampleKey))
        #expect(!WebSocketHandshake.accepts(HTTPResponseHead(status: .ok, headers: response.headers), key: key))
    }
}
