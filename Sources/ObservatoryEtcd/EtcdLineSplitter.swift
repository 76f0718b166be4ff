/// Cuts the watch stream's body into its JSON messages: the gateway ends each
/// one with a newline, and HTTP chunks need not follow message boundaries.
struct EtcdLineSplitter: Sendable {
    /// The longest message accepted: a watch response holds at most about
    /// etcd's request size (1.5 MiB by default) of keys and values, base64
    /// encoded, twice with previous values.
    static let maximumLineBytes = 16 << 20

    private var pending: [UInt8] = []

    /// Adds body bytes and returns the messages they complete, in order, without their newline.
    ///
    /// - Throws: `EtcdError.invalidResponse` when a message grows past `maximumLineBytes`.
    mutating func append(_ bytes: [UInt8]) throws(EtcdError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = pending
            line += bytes[start..<newline]
            pending.removeAll(keepingCapacity: true)
            if line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) { lines.append(line) }
            start = newline + 1
        }
        pending += bytes[start...]
        guard pending.count <= Self.maximumLineBytes else {
            throw EtcdError.invalidResponse("a watch message longer than \(Self.maximumLineBytes) bytes")
        }
        return lines
    }
}
