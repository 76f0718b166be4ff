/// Decodes WebSocket frames (RFC 6455 §5.2), fed bytes in any chunking.
///
/// Every rule that can be checked from a frame's header is checked as soon as the
/// header is in, before any payload is buffered: masking for the role, reserved bits,
/// reserved opcodes, control frames that are fragmented or over 125 bytes, and the
/// payload limit (so a peer announcing a huge frame costs nothing). Payloads come out
/// unmasked. Minimal length encoding is not required, as RFC 6455 asks of senders only.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(role: .server, maxPayloadBytes: maxFrameBytes)
/// decoder.append(receivedBytes)
/// while let frame = try decoder.next() { try assembler.receive(frame) ... }
/// ```
///
/// A failure is thrown again on every later call; its ``WebSocketError/closeCode`` is
/// the code to close with.
public struct WebSocketFrameDecoder: Sendable {
    /// The default payload limit: 1 MiB, the line protocol's default frame limit.
    public static let defaultMaxPayloadBytes = 1 << 20

    /// The end this decoder reads for: a server requires masked frames, a client unmasked ones.
    public let role: WebSocketRole
    /// The largest payload accepted per frame.
    public let maxPayloadBytes: Int
    /// The reserved bits a negotiated extension defines (bit 0x40 is RSV1); 0 without extensions.
    public let allowedReservedBits: UInt8

    private var buffer = InputBuffer()
    private var failure: WebSocketError?

    /// Creates a decoder for `role` with the given limits.
    public init(role: WebSocketRole, maxPayloadBytes: Int = defaultMaxPayloadBytes, allowedReservedBits: UInt8 = 0) {
        self.role = role
        self.maxPayloadBytes = maxPayloadBytes
        self.allowedReservedBits = allowedReservedBits & 0x70
    }

    /// The bytes held that do not belong to a frame handed out yet.
    public var bufferedByteCount: Int {
        buffer.readableCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        buffer.retainedByteCount
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// The next whole frame, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``WebSocketError`` with close code 1002 (masking, reserved bits or
    ///   opcodes, control frame rules, a 64-bit length over 2^63) or 1009 (payload over
    ///   ``maxPayloadBytes``); then on every later call.
    public mutating func next() throws(WebSocketError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try decodeNext()
        } catch {
            failure = error
            buffer.release()
            throw error
        }
    }

    private mutating func decodeNext() throws(WebSocketError) -> WebSocketFrame? {
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
