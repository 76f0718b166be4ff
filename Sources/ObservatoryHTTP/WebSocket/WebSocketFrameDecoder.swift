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

    private var core: DecoderCore<WebSocketFrameMachine>

    /// Creates a decoder for `role` with the given limits.
    public init(role: WebSocketRole, maxPayloadBytes: Int = defaultMaxPayloadBytes, allowedReservedBits: UInt8 = 0) {
        core = DecoderCore(
            machine: WebSocketFrameMachine(
                role: role, maxPayloadBytes: maxPayloadBytes, allowedReservedBits: allowedReservedBits & 0x70))
    }

    /// The end this decoder reads for: a server requires masked frames, a client unmasked ones.
    public var role: WebSocketRole {
        core.machine.role
    }

    /// The largest payload accepted per frame.
    public var maxPayloadBytes: Int {
        core.machine.maxPayloadBytes
    }

    /// The reserved bits a negotiated extension defines (bit 0x40 is RSV1); 0 without extensions.
    public var allowedReservedBits: UInt8 {
        core.machine.allowedReservedBits
    }

    /// The bytes held that do not belong to a frame handed out yet.
    public var bufferedByteCount: Int {
        core.bufferedByteCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        core.retainedByteCount
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        core.append(bytes)
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        core.append(bytes)
    }

    /// The next whole frame, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``WebSocketError`` with close code 1002 (masking, reserved bits or
    ///   opcodes, control frame rules, a 64-bit length over 2^63) or 1009 (payload over
    ///   ``maxPayloadBytes``); then on every later call.
    public mutating func next() throws(WebSocketError) -> WebSocketFrame? {
        try core.next()
    }
}
