import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketConnectionTests {
    /// The close code and reason in a server's close frame.
    private func closePayload(_ bytes: [UInt8]) throws -> WebSocketClosePayload? {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(bytes)
        let frame = try #require(try decoder.next())
        #expect(frame.opcode == .close)
        return try WebSocketClosePayload.decode(frame.payload)
    }

    @Test func textMessagesAreDelivered() {
        var connection = WebSocketConnection()
        let actions = connection.receive(
            clientFrame(.text, bytes("{\"op\":\"ping\"}")) + clientFrame(.text, bytes("x")))
        #expect(actions == [.deliver(.text("{\"op\":\"ping\"}")), .deliver(.text("x"))])
        #expect(connection.state == .open)
    }

    @Test func aPingIsAnsweredWithAPongCarryingItsPayload() {
        var connection = WebSocketConnection()
        #expect(connection.receive(clientFrame(.ping, bytes("Hello"))) == [.send([0x8A, 0x05] + bytes("Hello"))])
    }

    @Test func aPingBetweenFragmentsIsAnsweredBeforeTheMessageEnds() {
        var connection = WebSocketConnection()
        let input =
            clientFrame(.text, bytes("a"), fin: false) + clientFrame(.ping, []) + clientFrame(.continuation, bytes("b"))
        #expect(connection.receive(input) == [.send([0x8A, 0x00]), .deliver(.text("ab"))])
    }

    @Test func bytesByteByByteGiveTheSameActions() {
        let input = clientFrame(.text, bytes("one")) + clientFrame(.ping, bytes("p")) + clientFrame(.text, bytes("two"))
        var whole = WebSocketConnection()
        let expected = whole.receive(input)
        var single = WebSocketConnection()
        #expect(input.flatMap { single.receive([$0]) } == expected)
    }

    @Test func aPeersCloseIsEchoedAndTheConnectionCloses() throws {
        var connection = WebSocketConnection()
        let actions = connection.receive(
            clientFrame(.close, WebSocketClosePayload(code: .goingAway, reason: "bye").encoded()))
        #expect(actions.count == 2)
        guard case .send(let reply) = actions.first else {
            Issue.record("no close reply")
            return
        }
        #expect(try closePayload(reply) == WebSocketClosePayload(code: .goingAway))
        #expect(actions.last == .closeConnection)
        #expect(connection.state == .closed)
        #expect(connection.closeCode == .goingAway)
        #expect(connection.receive(clientFrame(.text, bytes("late"))).isEmpty)
        #expect(connection.sendText("late") == nil)
    }

    @Test func aCloseWithoutCodeIsAnsweredWithoutCode() {
        var connection = WebSocketConnection()
        #expect(connection.receive(clientFrame(.close, [])) == [.send([0x88, 0x00]), .closeConnection])
        #expect(connection.closeCode == nil)
    }

    @Test func afterThisSideClosesDataIsDroppedUntilThePeerAnswers() throws {
        var connection = WebSocketConnection()
        let closing = connection.close(.unsupportedData, reason: "text only")
        guard case .send(let frame) = closing.first else {
            Issue.record("no close frame")
            return
        }
        #expect(try closePayload(frame) == WebSocketClosePayload(code: .unsupportedData, reason: "text only"))
        #expect(connection.state == .closing)
        #expect(connection.close(.normalClosure).isEmpty)
        #expect(connection.receive(clientFrame(.text, bytes("more")) + clientFrame(.ping, [])).isEmpty)
        #expect(connection.receive(clientFrame(.close, [0x03, 0xEB])) == [.closeConnection])
        #expect(connection.state == .closed)
        #expect(connection.closeCode == .unsupportedData)
    }

    @Test func protocolErrorsCloseWithTheirCodes() throws {
        let cases: [([UInt8], WebSocketCloseCode)] = [
            ([0x81, 0x01, 0x61], .protocolError), // unmasked
            (clientFrame(.text, [0xFF]), .invalidPayloadData),
            (clientFrame(.continuation, bytes("x")), .protocolError),
            (clientFrame(.binary, [UInt8](repeating: 0, count: 65)), .messageTooBig),
        ]
        for (input, code) in cases {
            var connection = WebSocketConnection(maxMessageBytes: 64)
            let actions = connection.receive(input)
            #expect(actions.count == 2)
            guard case .send(let frame) = actions.first else {
                Issue.record("no close frame")
                continue
            }
            #expect(try closePayload(frame)?.code == code)
            #expect(actions.last == .closeConnection)
            #expect(connection.closeCode == code)
        }
    }

    @Test func binaryMessagesAreDeliveredForTheCallerToRefuse() {
        var connection = WebSocketConnection()
        #expect(connection.receive(clientFrame(.binary, [1])) == [.deliver(.binary([1]))])
    }

    @Test func theEndOfInputClosesTheConnection() {
        var connection = WebSocketConnection()
        #expect(connection.inputEnded() == [.closeConnection])
        #expect(connection.inputEnded().isEmpty)
    }

    @Test func aClientMasksWhatItSendsAndReadsUnmaskedFrames() throws {
        var client = WebSocketConnection(role: .client)
        let frame = try #require(client.sendText("hi"))
        #expect(frame[1] & 0x80 != 0)
        var server = WebSocketConnection(role: .server)
        #expect(server.receive(frame) == [.deliver(.text("hi"))])
        let reply = try #require(server.sendText("ok"))
        #expect(client.receive(reply) == [.deliver(.text("ok"))])
        #expect(server.sendPing(bytes("x")) == [0x89, 0x01, 0x78])
    }
}
