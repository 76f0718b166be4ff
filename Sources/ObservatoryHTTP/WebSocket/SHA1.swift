/// SHA-1 (FIPS 180-4), for the WebSocket handshake's `Sec-WebSocket-Accept` only.
///
/// SHA-1 is broken for collision resistance and must not be used for anything that
/// needs security; RFC 6455 uses it merely to prove that a server understood the
/// handshake, which is why a small implementation here is enough and no crypto
/// library is needed.
///
/// ```swift
/// var hash = SHA1()
/// hash.update(Array("ab".utf8))
/// hash.update(Array("c".utf8))
/// let digest = hash.finalize()   // 20 bytes: a9 99 3e 36 ...
/// ```
public struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    /// Bytes not yet making a whole 64-byte block.
    private var pending: [UInt8] = []
    private var messageByteCount: UInt64 = 0

    /// A hash of no bytes yet.
    public init() {
        pending.reserveCapacity(64)
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA1()
        hash.update(bytes)
        return hash.finalize()
    }

    /// Adds bytes to the message; call as often as needed.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            pending.append(byte)
            messageByteCount &+= 1
            if pending.count == 64 {
                processPendingBlock()
            }
        }
    }

    /// The 20-byte digest of everything added. The hash is spent afterwards.
    public mutating func finalize() -> [UInt8] {
        let bitCount = messageByteCount &* 8
        pending.append(0x80)
        if pending.count > 56 {
            pending.append(contentsOf: repeatElement(0, count: 64 - pending.count))
            processPendingBlock()
        }
        pending.append(contentsOf: repeatElement(0, count: 56 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }
        processPendingBlock()
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            digest.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) })
        }
        return digest
    }

    /// Runs the 80 rounds over the 64 pending bytes and empties them.
    private mutating func processPendingBlock() {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            for index in 0..<16 {
                let base = index * 4
                schedule[index] =
                    UInt32(pending[base]) << 24 | UInt32(pending[base + 1]) << 16 | UInt32(pending[base + 2]) << 8
                    | UInt32(pending[base + 3])
            }
            for index in 16..<80 {
                let mixed = schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16]
                schedule[index] = mixed.rotatedLeft(by: 1)
            }
            // The working variables are named as FIPS 180-4 §6.1.2 names them.
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let mix: UInt32
                let constant: UInt32
                switch index {
                case 0..<20:
                    mix = (b & c) | (~b & d)
                    constant = 0x5A82_7999
                case 20..<40:
                    mix = b ^ c ^ d
                    constant = 0x6ED9_EBA1
                case 40..<60:
                    mix = (b & c) | (b & d) | (c & d)
                    constant = 0x8F1B_BCDC
                default:
                    mix = b ^ c ^ d
                    constant = 0xCA62_C1D6
                }
                let next = a.rotatedLeft(by: 5) &+ mix &+ e &+ constant &+ schedule[index]
                e = d
                d = c
                c = b.rotatedLeft(by: 30)
                b = a
                a = next
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
        pending.removeAll(keepingCapacity: true)
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedLeft(by count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }
}
