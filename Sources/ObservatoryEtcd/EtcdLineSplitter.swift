import ObservatoryJSON

/// Cuts the watch stream's body into its JSON messages: the gateway ends each
/// one with a newline, and HTTP chunks need not follow message boundaries.
///
/// The splitting is the one `LineSplitter` that also cuts the protocol's frames;
/// this adds etcd's limit and error.
struct EtcdLineSplitter: Sendable {
    /// The longest message accepted: a watch response holds at most about
    /// etcd's request size (1.5 MiB by default) of keys and values, base64
    /// encoded, twice with previous values.
    static let maximumLineBytes = 16 << 20

    private var lines = LineSplitter(maxLineBytes: maximumLineBytes)

    /// Adds body bytes and returns the messages they complete, in order, without their newline.
    ///
    /// - Throws: `EtcdError.invalidResponse` when a message grows past `maximumLineBytes`.
    mutating func append(_ bytes: [UInt8]) throws(EtcdError) -> [[UInt8]] {
        lines.append(bytes)
        var messages: [[UInt8]] = []
        do {
            while let line = try lines.next() { messages.append(line) }
        } catch {
            throw EtcdError.invalidResponse("a watch message longer than \(error.limit) bytes")
        }
        return messages
    }
}
