/// The rules of ``WebSocketFrameDecoder``, run by its ``DecoderCore``: one frame at a
/// time, each header checked before its payload is waited for.
struct WebSocketFrameMachine: DecodingMachine {
    let role: WebSocketRole
    let maxPayloadBytes: Int
    let allowedReservedBits: UInt8

    /// The next whole frame; a close mid-frame is the connection's to notice.
    func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(WebSocketError) -> WebSocketFrame? {
        guard buffer.readableCount >= 2 else { return nil }
        let first = buffer[offset: 0]
        let second = buffer[offset: 1]
        let opcode = WebSocketOpcode(first)
        let isMasked = second & 0x80 != 0
        let shortLength = Int(second & 0x7F)
        try checkHeader(first: first, opcode: opcode, isMasked: isMasked, shortLength: shortLength)

        let lengthBytes = shortLength == 126 ? 2 : (shortLength == 127 ? 8 : 0)
        // The length is checked as soon as its bytes are in, before the masking key.
        guard buffer.readableCount >= 2 + lengthBytes else { return nil }
        var payloadLength = shortLength
        if lengthBytes > 0 {
            var length: UInt64 = 0
            for offset in 2..<(2 + lengthBytes) { length = length << 8 | UInt64(buffer[offset: offset]) }
            guard length >> 63 == 0 else {
                throw .protocolError(.invalidLength, "a 64-bit payload length must not have its top bit set")
            }
            guard length <= UInt64(maxPayloadBytes) else { throw .tooLarge(.frameTooLarge, limit: maxPayloadBytes) }
            payloadLength = Int(length)
        }
        guard payloadLength <= maxPayloadBytes else { throw .tooLarge(.frameTooLarge, limit: maxPayloadBytes) }
        let headerLength = 2 + lengthBytes + (isMasked ? 4 : 0)
        guard buffer.readableCount >= headerLength + payloadLength else { return nil }

        var maskingKey: UInt32?
        if isMasked {
            var key: UInt32 = 0
            for offset in (headerLength - 4)..<headerLength { key = key << 8 | UInt32(buffer[offset: offset]) }
            maskingKey = key
        }
        buffer.consume(headerLength)
        var payload = buffer.read(payloadLength)
        if let maskingKey { WebSocketFrame.applyMask(maskingKey, to: &payload) }
        return WebSocketFrame(
            fin: first & 0x80 != 0, rsv1: first & 0x40 != 0, rsv2: first & 0x20 != 0, rsv3: first & 0x10 != 0,
            opcode: opcode, maskingKey: maskingKey, payload: payload)
    }

    /// The rules that the first two bytes decide.
    private func checkHeader(
        first: UInt8, opcode: WebSocketOpcode, isMasked: Bool, shortLength: Int
    ) throws(WebSocketError) {
        let reservedBits = first & 0x70
        guard reservedBits & ~allowedReservedBits == 0 else {
            throw .protocolError(.reservedBitsSet, "reserved bits are set but no extension was negotiated")
        }
        guard opcode.isDefined else { throw .protocolError(.unknownOpcode, "opcode \(opcode) is reserved") }
        if opcode.isControl {
            guard first & 0x80 != 0 else {
                throw .protocolError(.invalidControlFrame, "a \(opcode) frame must not be fragmented")
            }
            guard shortLength <= 125 else {
                throw .protocolError(.invalidControlFrame, "a \(opcode) frame must carry at most 125 bytes")
            }
        }
        switch role {
        case .server where !isMasked:
            throw .protocolError(.unmaskedFrame, "frames from a client must be masked")
        case .client where isMasked:
            throw .protocolError(.maskedFrame, "frames from a server must not be masked")
        default:
            break
        }
    }
}
