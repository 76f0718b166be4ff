/// The value every benchmark write carries: `{"seq":N,"ts":T,"pad":"xx…"}`, padded to
/// a fixed size, with `ts` the monotonic nanoseconds the write was (meant to be) sent.
///
/// The same JSON text goes to both servers (as the observed value, or as Redis's
/// message), so both move the same bytes; and the stamp travels inside it, so
/// write→event latency needs no per-write bookkeeping on the receiving side.
struct BenchPayload {
    /// Payload size in bytes, as the reference load generator's default.
    static let size = 64

    private static let seqPrefix = Array(#"{"seq":"#.utf8)
    private static let stampPrefix = Array(#","ts":"#.utf8)
    private static let padPrefix = Array(#","pad":""#.utf8)
    private static let ending = Array(#""}"#.utf8)
    /// The member that carries the stamp, as found in received bytes.
    static let stampMember = Array(#""ts":"#.utf8)

    /// The encoded payload; rebuilt in place by `update`.
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(Self.size + 32)
    }

    /// Re-encodes the payload for write `sequence` stamped `timestamp`.
    mutating func update(sequence: UInt64, timestamp: UInt64) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: Self.seqPrefix)
        bytes.appendDecimal(sequence)
        bytes.append(contentsOf: Self.stampPrefix)
        bytes.appendDecimal(timestamp)
        bytes.append(contentsOf: Self.padPrefix)
        let padding = max(0, Self.size - bytes.count - Self.ending.count)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "x"), count: padding))
        bytes.append(contentsOf: Self.ending)
    }

    /// The stamp in a received payload that starts at or after `start` in `bytes`.
    static func timestamp(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UInt64? {
        guard let member = ByteScan.find(stampMember, in: bytes, from: start, to: end) else { return nil }
        return ByteScan.decimal(in: bytes, from: member + stampMember.count, to: end)
    }
}

extension [UInt8] {
    /// Appends `value` in decimal ASCII without going through `String`: digits are
    /// written backwards into a small stack buffer (division by the constant 10 is a
    /// multiplication), then appended at once. The driver does this for every write.
    mutating func appendDecimal(_ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
