import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketMessageAssemblerTests {
    private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    /// Every message the frames make, in order.
    private func assemble(
        _ frames: [WebSocketFrame], assembler: WebSocketMessageAssembler = WebSocketMessageAssembler()
    ) throws(WebSocketError) -> [WebSocketMessage] {
        var assembler = assembler
        var messages: [WebSocketMessage] = []
        for frame in frames {
            if let message = try assembler.receive(frame) { messages.append(message) }
        }
        return messages
    }

    private func failure(
        _ frames: [WebSocketFrame], assembler: WebSocketMessageAssembler = WebSocketMessageAssembler()
    ) -> WebSocketError? {
        thrownWebSocketError { () throws(WebSocketError) in try assemble(frames, assembler: assembler) }
    }

    @Test func aSingleFrameIsAWholeMessage() throws {
        #expect(try assemble([frame(.text, bytes("{\"op\":\"ping\"}"))]) == [.text("{\"op\":\"ping\"}")])
        #expect(try assemble([frame(.binary, [1, 2])]) == [.binary([1, 2])])
    }

    @Test func fragmentsJoinIntoOneMessage() throws {
        let frames = [
            frame(.text, bytes("Hel"), fin: false), frame(.continuation, bytes("l"), fin: false),
            frame(.continuation, bytes("o")),
        ]
        #expect(try assemble(frames) == [.text("Hello")])
    }

    @Test func controlFramesBetweenFragmentsComeOutAtOnce() throws {
        let frames = [
            frame(.text, bytes("a"), fin: false), frame(.ping, bytes("p")),
            frame(.pong, bytes("q")), frame(.continuation, bytes("b")),
        ]
        #expect(try assemble(frames) == [.ping(bytes("p")), .pong(bytes("q")), .text("ab")])
    }

    @Test func aCharacterSplitAcrossFragmentsIsValid() throws {
        let euro = bytes("\u{20AC}")
        let frames = [frame(.text, Array(euro.prefix(1)), fin: false), frame(.continuation, Array(euro.dropFirst()))]
        #expect(try assemble(frames) == [.text("\u{20AC}")])
    }

    @Test func invalidUTF8InTextIs1007() {
        for payload: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0x61, 0x80]] {
            let error = failure([frame(.text, payload)])
            #expect(error?.code == .invalidUTF8)
            #expect(error?.closeCode == .invalidPayloadData)
        }
        #expect(
            failure([frame(.text, [0xC3], fin: false), frame(.continuation, [0x28])])?.closeCode == .invalidPayloadData)
    }

    @Test func binaryMessagesAreSurfacedNotValidated() throws {
        #expect(
            try assemble([frame(.binary, [0xFF], fin: false), frame(.continuation, [0xFE])]) == [.binary([0xFF, 0xFE])])
    }

    @Test func aContinuationWithoutAMessageIs1002() {
        let error = failure([frame(.continuation, bytes("x"))])
        #expect(error?.code == .unexpectedContinuation)
        #expect(error?.closeCode == .protocolError)
    }

    @Test func aNewMessageInsideAFragmentedOneIs1002() {
        let error = failure([frame(.text, bytes("a"), fin: false), frame(.binary, bytes("b"))])
        #expect(error?.code == .expectedContinuation)
        #expect(error?.closeCode == .protocolError)
    }

    @Test func theMessageLimitHoldsAtItsEdgeForWholeAndFragmentedMessages() {
        let assembler = WebSocketMessageAssembler(maxMessageBytes: 4)
        #expect(failure([frame(.text, bytes("abcd"))], assembler: assembler) == nil)
        #expect(failure([frame(.text, bytes("abcde"))], assembler: assembler)?.code == .messageTooLarge)
        let atEdge = [frame(.text, bytes("ab"), fin: false), frame(.continuation, bytes("cd"))]
        #expect(failure(atEdge, assembler: assembler) == nil)
        let over = failure(
            [frame(.text, bytes("ab"), fin: false), frame(.continuation, bytes("cde"))], assembler: assembler)
        #expect(over?.code == .messageTooLarge)
        #expect(over?.closeCode == .messageTooBig)
    }

    @Test func closeFramesCarryTheirCodeAndReason() throws {
        #expect(
            try assemble([frame(.close, [0x03, 0xE9, 0x62])]) == [
                .close(WebSocketClosePayload(code: .goingAway, reason: "b"))
            ])
        #expect(try assemble([frame(.close, [])]) == [.close(nil)])
    }

    @Test func theAssemblerIsBetweenMessagesAfterEachOne() throws {
        var assembler = WebSocketMessageAssembler()
        _ = try assembler.receive(frame(.text, bytes("a"), fin: false))
        #expect(assembler.isInsideMessage)
        _ = try assembler.receive(frame(.continuation, bytes("b")))
        #expect(!assembler.isInsideMessage)
        #expect(try assembler.receive(frame(.text, bytes("c"))) == .text("c"))
    }
}
