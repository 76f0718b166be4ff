/// Encodes WebSocket frames (RFC 6455 §5.2) with the shortest length encoding.
///
/// A server's frames go unmasked; a client's carry a masking key, and the payload
/// is sent masked with it. Encoding does not check the rules a decoder enforces
/// (such as 125 bytes for control frames): the helpers below keep to them.
///
/// ```swift
/// send(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array(reply.utf8))))
/// ```
public enum WebSocketFrameEncoder {
    /// The frame as bytes to send.
    public static func encode(_ frame: WebSocketFrame) -> [UInt8] {
        var bytes: [UInt8] = []
        append(frame, to: &bytes)
        return bytes
    }

    /// Appends the frame's bytes to `output`, so several frames share one send buffer.
    public static func append(_ frame: WebSocketFrame, to output: inout [UInt8]) {
        let length = frame.payload.count
        output.reserveCapacity(output.count + 14 + length)
        var first = frame.opcode.value
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }
        appendHeader(first: first, masked: frame.maskingKey != nil, payloadCount: length, to: &output)
        guard let key = frame.maskingKey else {
            output.append(contentsOf: frame.payload)
            return
        }
        for shift in [24, 16, 8, 0] as [UInt32] { output.append(UInt8(truncatingIfNeeded: key >> shift)) }
        var masked = frame.payload
        WebSocketFrame.applyMask(key, to: &masked)
        output.append(contentsOf: masked)
    }

    /// Appends the header of a final, unmasked text frame (a server's) whose payload
    /// of `payloadCount` bytes the caller appends next, straight from where it is
    /// kept: a server sending one payload to many clients frames it without copying
    /// it first. Inlinable and byte by byte: it runs once per event per WebSocket
    /// client, and an `append(contentsOf:)` of a few bytes costs more than these.
    @inlinable
    public static func appendTextHeader(payloadCount: Int, to output: inout [UInt8]) {
        // FIN and the text opcode; a literal, where `WebSocketOpcode.text` is read through its accessor.
        let first: UInt8 = 0x81
        guard payloadCount <= 0xFFFF else {
            return appendHeader(first: first, masked: false, payloadCount: payloadCount, to: &output)
        }
        output.append(first)
        if payloadCount <= 125 {
            output.append(UInt8(payloadCount))
        } else {
            output.append(126)
            output.append(UInt8(payloadCount >> 8))
            output.append(UInt8(truncatingIfNeeded: payloadCount))
        }
    }

    /// The first byte as given, then the mask bit and the shortest length encoding.
    @usableFromInline
    static func appendHeader(first: UInt8, masked: Bool, payloadCount length: Int, to output: inout [UInt8]) {
        let maskBit: UInt8 = masked ? 0x80 : 0
        output.append(first)
        if length <= 125 {
            output.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(length >> 8))
            output.append(UInt8(truncatingIfNeeded: length))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
    }

    /// A final text frame carrying `text`.
    public static func text(_ text: String, maskingKey: UInt32? = nil) -> [UInt8] {
        encode(WebSocketFrame(opcode: .text, maskingKey: maskingKey, payload: Array(text.utf8)))
    }

    /// A pong that answers a ping with `payload`.
    public static func pong(_ payload: [UInt8], maskingKey: UInt32? = nil) -> [UInt8] {
        encode(WebSocketFrame(opcode: .pong, maskingKey: maskingKey, payload: Array(payload.prefix(125))))
    }

    /// A close frame with `payload`, or with no code at all for `nil`.
    public static func close(_ payload: WebSocketClosePayload?, maskingKey: UInt32? = nil) -> [UInt8] {
        encode(WebSocketFrame(opcode: .close, maskingKey: maskingKey, payload: payload?.encoded() ?? []))
    }
}
