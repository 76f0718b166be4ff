/// The epoch of a cluster: the same on every node of one etcd cluster and
/// prefix, different for another cluster (another history of revisions) or
/// another prefix (another state on the same etcd).
enum ClusterEpoch {
    /// The epoch of the state under `prefix` on the etcd cluster `clusterID`: 16
    /// hex digits mixing the two (FNV-1a over the prefix, then the id).
    static func name(clusterID: UInt64, prefix: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in prefix.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        for shift in stride(from: 0, to: 64, by: 8) {
            hash = (hash ^ ((clusterID >> UInt64(shift)) & 0xff)) &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
