/// One WebSocket frame (RFC 6455 §5.2), its payload unmasked.
///
/// The decoder hands out frames with the payload already unmasked and the key it
/// used kept in ``maskingKey``; the encoder masks the payload with ``maskingKey``
/// when one is set (a client's frames) and sends it as is otherwise (a server's).
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the last frame of its message.
    public var fin: Bool
    /// The first reserved bit; set only by a negotiated extension (none here).
    public var rsv1: Bool
    /// The second reserved bit.
    public var rsv2: Bool
    /// The third reserved bit.
    public var rsv3: Bool
    /// What the payload is.
    public var opcode: WebSocketOpcode
    /// The 4-byte masking key, most significant byte first: set on frames a client
    /// sends, absent on frames a server sends.
    public var maskingKey: UInt32?
    /// The application data, unmasked.
    public var payload: [UInt8]

    /// Creates a frame; by default the final one, unmasked, with no reserved bits.
    public init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false, opcode: WebSocketOpcode,
        maskingKey: UInt32? = nil, payload: [UInt8] = []
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payload = payload
    }

    /// XORs `bytes` with `key` in place, as RFC 6455 §5.3 masks and unmasks: the
    /// same operation both ways.
    public static func applyMask(_ key: UInt32, to bytes: inout [UInt8]) {
        let keyBytes = [
            UInt8(key >> 24), UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 8),
            UInt8(truncatingIfNeeded: key),
        ]
        // Eight bytes at a time with the key repeated twice: the mask has period 4,
        // so any offset that is a multiple of 8 starts at key byte 0.
        var wideKey: UInt64 = 0
        withUnsafeMutableBytes(of: &wideKey) { wide in
            for index in 0..<8 { wide[index] = keyBytes[index & 3] }
        }
        bytes.withUnsafeMutableBytes { buffer in
            let wideCount = buffer.count / 8
            for index in 0..<wideCount {
                let offset = index * 8
                let word = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                buffer.storeBytes(of: word ^ wideKey, toByteOffset: offset, as: UInt64.self)
            }
            for index in (wideCount * 8)..<buffer.count {
                buffer[index] ^= keyBytes[index & 3]
            }
        }
    }
}
