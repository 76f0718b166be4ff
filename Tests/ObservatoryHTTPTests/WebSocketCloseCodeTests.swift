import Testing

@testable import ObservatoryHTTP

@Suite struct WebSocketCloseCodeTests {
    @Test func theNamedCodesHaveTheirRFCValues() {
        let codes: [WebSocketCloseCode] = [
            .normalClosure, .goingAway, .protocolError, .unsupportedData,
            .invalidPayloadData, .policyViolation, .messageTooBig, .internalError,
        ]
        #expect(codes.map(\.value) == [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1011])
        let allAllowed = codes.allSatisfy(\.isAllowedOnTheWire)
        #expect(allAllowed)
    }

    @Test func codesReservedForLocalUseMayNotBeSent() {
        for value: UInt16 in [0, 999, 1004, 1005, 1006, 1012, 1015, 2999, 5000] {
            #expect(!WebSocketCloseCode(value).isAllowedOnTheWire, "\(value)")
        }
        #expect(WebSocketCloseCode(3000).isAllowedOnTheWire && WebSocketCloseCode(4999).isAllowedOnTheWire)
    }

    @Test func aPayloadRoundTripsWithItsReason() throws {
        let payload = WebSocketClosePayload(code: .messageTooBig, reason: "too big: 2 MiB")
        #expect(try WebSocketClosePayload.decode(payload.encoded()) == payload)
        #expect(payload.encoded().prefix(2) == [0x03, 0xF1])
    }

    @Test func aLongReasonIsCutAtACharacterSoTheFrameStaysAControlFrame() throws {
        let payload = WebSocketClosePayload(code: .normalClosure, reason: String(repeating: "\u{E9}", count: 100))
        let encoded = payload.encoded()
        #expect(encoded.count == 2 + 122)
        #expect(try WebSocketClosePayload.decode(encoded)?.reason.count == 61)
    }

    @Test func anEmptyPayloadHasNoCode() throws {
        #expect(try WebSocketClosePayload.decode([]) == nil)
    }

    @Test func badPayloadsAreRefusedWithTheirCloseCodes() {
        let oneByte = thrownWebSocketError { () throws(WebSocketError) in try WebSocketClosePayload.decode([3]) }
        #expect(oneByte?.code == .invalidClosePayload && oneByte?.closeCode == .protocolError)
        let localCode = thrownWebSocketError { () throws(WebSocketError) in
            try WebSocketClosePayload.decode([0x03, 0xED])
        }
        #expect(localCode?.code == .invalidClosePayload)
        let badReason = thrownWebSocketError { () throws(WebSocketError) in
            try WebSocketClosePayload.decode([0x03, 0xE8, 0xFF])
        }
        #expect(badReason?.code == .invalidUTF8 && badReason?.closeCode == .invalidPayloadData)
    }
}
