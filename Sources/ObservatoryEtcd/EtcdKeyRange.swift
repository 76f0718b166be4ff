import ObservatoryJSON

/// The keys a request covers: one key, every key under a prefix, or every key
/// from one key on. etcd's `key` and `range_end` pair.
public struct EtcdKeyRange: Hashable, Sendable {
    /// The first key.
    public var key: [UInt8]
    /// The end of the range, excluded; empty for `key` alone, `[0]` for every
    /// key from `key` on.
    public var rangeEnd: [UInt8]

    /// Creates a range from etcd's pair as is.
    public init(key: [UInt8], rangeEnd: [UInt8] = []) {
        self.key = key
        self.rangeEnd = rangeEnd
    }

    /// One key.
    public static func key(_ key: [UInt8]) -> EtcdKeyRange {
        EtcdKeyRange(key: key)
    }

    /// One key, written as text.
    public static func key(_ key: String) -> EtcdKeyRange {
        EtcdKeyRange(key: Array(key.utf8))
    }

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> EtcdKeyRange {
        EtcdKeyRange(key: prefix, rangeEnd: prefixRangeEnd(prefix))
    }

    /// Every key that starts with `prefix`, written as text.
    public static func prefix(_ prefix: String) -> EtcdKeyRange {
        .prefix(Array(prefix.utf8))
    }

    /// The range end that covers every key starting with `prefix`: the prefix
    /// with its last byte below 0xff incremented and the 0xff bytes after it
    /// dropped (the carry). `[0]`, etcd's "to the end of the keyspace", when the
    /// prefix is empty or all 0xff, since no key above it can share the prefix.
    public static func prefixRangeEnd(_ prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xff {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]
    }

    /// A request's `key` and, when not empty, `range_end` (null: left out), for `EtcdJSON.object(_:)`.
    var members: [(String, JSONValue)] {
        [("key", EtcdJSON.base64(key)), ("range_end", rangeEnd.isEmpty ? nil : EtcdJSON.base64(rangeEnd))]
    }
}
