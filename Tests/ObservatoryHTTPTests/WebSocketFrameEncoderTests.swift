import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketFrameEncoderTests {
    @Test func serverFramesMatchTheRFCExamples() {
        #expect(WebSocketFrameEncoder.text("Hello") == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(
            WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: bytes("Hello")))
                == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func maskedFramesMatchTheRFCExamples() {
        #expect(
            WebSocketFrameEncoder.text("Hello", maskingKey: sampleMaskingKey)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(
            WebSocketFrameEncoder.pong(bytes("Hello"), maskingKey: sampleMaskingKey)
                == [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func lengthsUseTheShortestEncoding() {
        let sizes = [0, 125, 126, 65_535, 65_536]
        let headers = sizes.map {
            Array(
                WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: $0)))
                    .prefix(10))
        }
        #expect(headers[0].prefix(2) == [0x82, 0])
        #expect(headers[1].prefix(2) == [0x82, 125])
        #expect(headers[2].prefix(4) == [0x82, 126, 0, 126])
        #expect(headers[3].prefix(4) == [0x82, 126, 0xFF, 0xFF])
        #expect(headers[4] == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func maskingLongPayloadsRoundTripsAtEveryLength() throws {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 1000] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var masked = payload
            WebSocketFrame.applyMask(0xDEAD_BEEF, to: &masked)
            if length > 0 { #expect(masked != payload) }
            // The mask repeats every four bytes from the start.
            for index in 0..<length {
                let keyByte = [0xDE, 0xAD, 0xBE, 0xEF][index % 4] as UInt8
                #expect(masked[index] == payload[index] ^ keyByte)
            }
            WebSocketFrame.applyMask(0xDEAD_BEEF, to: &masked)
            #expect(masked == payload)
        }
    }

    @Test func encodedFramesDecodeToThemselves() throws {
        let frame = WebSocketFrame(fin: false, opcode: .binary, maskingKey: 0x0102_0304, payload: [1, 2, 3, 4, 5])
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(WebSocketFrameEncoder.encode(frame))
        #expect(try decoder.next() == frame)
    }

    @Test func closeFramesCarryTheirCodeAndReason() {
        #expect(
            WebSocketFrameEncoder.close(WebSocketClosePayload(code: .normalClosure, reason: "bye"))
                == [0x88, 5, 0x03, 0xE8, 0x62, 0x79, 0x65])
        #expect(WebSocketFrameEncoder.close(nil) == [0x88, 0])
    }

    /// A text header written in front of a payload kept elsewhere makes the same
    /// bytes as the whole frame, at each length encoding's edges.
    @Test(arguments: [0, 125, 126, 65_535, 65_536])
    func aTextHeaderBeforeItsPayloadIsTheWholeFrame(payloadCount: Int) {
        let payload = [UInt8](repeating: 0x61, count: payloadCount)
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.appendTextHeader(payloadCount: payloadCount, to: &bytes)
        bytes += payload
        #expect(bytes == WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: payload)))
    }
}
