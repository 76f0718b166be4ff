import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketFrameDecoderTests {
    /// Every frame in `input`, fed in pieces of `pieceSize`.
    private func decode(
        _ input: [UInt8], pieceSize: Int? = nil, decoder: WebSocketFrameDecoder = WebSocketFrameDecoder(role: .server)
    ) throws(WebSocketError) -> [WebSocketFrame] {
        var decoder = decoder
        var frames: [WebSocketFrame] = []
        let step = pieceSize ?? max(1, input.count)
        var start = 0
        while start < input.count {
            decoder.append(input[start..<min(input.count, start + step)])
            while let frame = try decoder.next() { frames.append(frame) }
            start += step
        }
        return frames
    }

    private func failure(
        _ input: [UInt8], decoder: WebSocketFrameDecoder = WebSocketFrameDecoder(role: .server)
    ) -> WebSocketError? {
        thrownWebSocketError { () throws(WebSocketError) in try decode(input, decoder: decoder) }
    }

    @Test func theRFCMaskedHelloDecodesUnmasked() throws {
        let frames = try decode([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(frames == [WebSocketFrame(opcode: .text, maskingKey: sampleMaskingKey, payload: bytes("Hello"))])
    }

    @Test func aClientReadsTheRFCUnmaskedFragments() throws {
        let frames = try decode(
            [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F], decoder: WebSocketFrameDecoder(role: .client))
        #expect(frames.map(\.fin) == [false, true])
        #expect(frames.map(\.opcode) == [.text, .continuation])
        #expect(frames.map { text($0.payload) } == ["Hel", "lo"])
    }

    @Test func sixteenAndSixtyFourBitLengthsDecodeByteByByte() throws {
        let medium = [UInt8](repeating: 7, count: 256)
        let large = [UInt8](repeating: 9, count: 70_000)
        let input = clientFrame(.binary, medium) + clientFrame(.binary, large) + clientFrame(.ping, [])
        #expect(Array(input[1...3]) == [0xFE, 0x01, 0x00])
        let whole = try decode(input)
        #expect(whole.map(\.payload.count) == [256, 70_000, 0])
        #expect(whole[0].payload == medium && whole[1].payload == large)
        #expect(try decode(input, pieceSize: 1) == whole)
    }

    @Test func nonMinimalLengthEncodingsAreAccepted() throws {
        // "Hi" with a 16-bit and then a 64-bit length field, unmasked, read by a client.
        let input: [UInt8] = [0x81, 126, 0, 2, 0x48, 0x69, 0x81, 127, 0, 0, 0, 0, 0, 0, 0, 2, 0x48, 0x69]
        #expect(
            try decode(input, decoder: WebSocketFrameDecoder(role: .client)).map { text($0.payload) } == ["Hi", "Hi"])
    }

    @Test func severalFramesInOneBufferComeOutInOrder() throws {
        let input = clientFrame(.text, bytes("a")) + clientFrame(.ping, bytes("p")) + clientFrame(.close, [3, 232])
        #expect(try decode(input).map(\.opcode) == [.text, .ping, .close])
    }

    @Test func anUnmaskedFrameToAServerIsAProtocolError() {
        let error = failure([0x81, 0x02, 0x48, 0x69])
        #expect(error?.code == .unmaskedFrame)
        #expect(error?.closeCode == .protocolError)
    }

    @Test func aMaskedFrameToAClientIsAProtocolError() {
        let error = failure(clientFrame(.text, bytes("x")), decoder: WebSocketFrameDecoder(role: .client))
        #expect(error?.code == .maskedFrame)
        #expect(error?.closeCode == .protocolError)
    }

    @Test func reservedBitsWithoutAnExtensionAreAProtocolError() {
        for bit: UInt8 in [0x40, 0x20, 0x10] {
            var frame = clientFrame(.text, bytes("x"))
            frame[0] |= bit
            #expect(failure(frame)?.code == .reservedBitsSet)
            #expect(failure(frame)?.closeCode == .protocolError)
        }
        var compressed = clientFrame(.text, bytes("x"))
        compressed[0] |= 0x40
        #expect(failure(compressed, decoder: WebSocketFrameDecoder(role: .server, allowedReservedBits: 0x40)) == nil)
    }

    @Test func reservedOpcodesAreAProtocolError() {
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            let error = failure([0x80 | opcode, 0x80, 0, 0, 0, 0])
            #expect(error?.code == .unknownOpcode, "\(opcode)")
            #expect(error?.closeCode == .protocolError)
        }
    }

    @Test func controlFramesMustBeShortAndWhole() {
        #expect(failure(clientFrame(.ping, [UInt8](repeating: 0, count: 125))) == nil)
        let long = failure(clientFrame(.ping, [UInt8](repeating: 0, count: 126)))
        #expect(long?.code == .invalidControlFrame)
        #expect(long?.closeCode == .protocolError)
        #expect(failure(clientFrame(.close, [], fin: false))?.code == .invalidControlFrame)
        #expect(failure(clientFrame(.pong, [], fin: false))?.closeCode == .protocolError)
    }

    @Test func theTopBitOfASixtyFourBitLengthIsAProtocolError() {
        let error = failure([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
        #expect(error?.code == .invalidLength)
        #expect(error?.closeCode == .protocolError)
    }

    @Test func thePayloadLimitHoldsAtItsEdge() {
        let decoder = WebSocketFrameDecoder(role: .server, maxPayloadBytes: 200)
        #expect(failure(clientFrame(.binary, [UInt8](repeating: 1, count: 200)), decoder: decoder) == nil)
        let over = failure(clientFrame(.binary, [UInt8](repeating: 1, count: 201)), decoder: decoder)
        #expect(over?.code == .frameTooLarge)
        #expect(over?.closeCode == .messageTooBig)
    }

    @Test func anOversizedFrameIsRefusedFromItsHeaderAlone() {
        // Only the header of a frame announcing 2^40 bytes: refused without waiting for the payload.
        let header: [UInt8] = [0x82, 0xFF, 0, 0, 0x01, 0, 0, 0, 0, 0, 1, 2, 3, 4]
        #expect(failure(header)?.code == .frameTooLarge)
        let sixteenBit: [UInt8] = [0x82, 0xFE, 0xFF, 0xFF]
        #expect(
            failure(sixteenBit, decoder: WebSocketFrameDecoder(role: .server, maxPayloadBytes: 1000))?.code
                == .frameTooLarge)
    }

    @Test func headerRulesFailBeforeTheLengthArrives() {
        // Two bytes of an unmasked frame with a 64-bit length: the rest is not needed to refuse it.
        #expect(failure([0x82, 0x7F])?.code == .unmaskedFrame)
    }

    @Test func afterAFailureTheDecoderKeepsFailing() {
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append([0x81, 0x00])
        #expect(thrownWebSocketError { () throws(WebSocketError) in try decoder.next() }?.code == .unmaskedFrame)
        decoder.append(clientFrame(.text, bytes("ok")))
        #expect(thrownWebSocketError { () throws(WebSocketError) in try decoder.next() }?.code == .unmaskedFrame)
        #expect(decoder.bufferedByteCount == 0)
    }
}
