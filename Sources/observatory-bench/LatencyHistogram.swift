/// Latencies in nanoseconds, counted in buckets 1/64 of a power of two wide (≤ 1.6 %
/// error), so that millions of deliveries per second cost an increment each and no
/// memory grows with the run's length.
struct LatencyHistogram {
    /// Sub-buckets per power of two, as a power of two.
    private static let precisionBits = 6
    private static let subBuckets = 1 << precisionBits
    /// Values below `subBuckets` are exact; above, 64 buckets for each of the 58 remaining powers of two.
    private static let bucketCount = subBuckets + (64 - precisionBits) * subBuckets

    private var counts = [UInt64](repeating: 0, count: bucketCount)
    private(set) var count: UInt64 = 0

    mutating func record(_ nanoseconds: UInt64) {
        counts[Self.bucket(of: nanoseconds)] += 1
        count += 1
    }

    /// The latency below which `fraction` (0...1) of the recorded ones lie: the middle of its bucket.
    func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (bucket, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return Self.middle(of: bucket) }
        }
        return Self.middle(of: counts.count - 1)
    }

    private static func bucket(of value: UInt64) -> Int {
        guard value >= UInt64(subBuckets) else { return Int(value) }
        let exponent = UInt64.bitWidth - 1 - value.leadingZeroBitCount
        let shift = exponent - precisionBits
        let mantissa = Int(value >> UInt64(shift)) - subBuckets
        return subBuckets + shift * subBuckets + mantissa
    }

    private static func middle(of bucket: Int) -> UInt64 {
        guard bucket >= subBuckets else { return UInt64(bucket) }
        let shift = (bucket - subBuckets) / subBuckets
        let mantissa = UInt64((bucket - subBuckets) % subBuckets + subBuckets)
        return (mantissa << UInt64(shift)) + (UInt64(1) << UInt64(shift)) / 2
    }
}
