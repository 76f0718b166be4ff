import ObservatoryWire

/// What the offline store keeps of one mirrored key: the server's value as the
/// mirror last saw it, with its version and author, where to resume the key,
/// and the local write the server has not acknowledged yet.
struct OfflineEntry: Codable, Equatable, Sendable {
    /// A local write the server has not acknowledged: sent again after a
    /// restart with the same request id, so the server applies it once.
    struct Write: Codable, Equatable, Sendable {
        /// The value written.
        var value: JSONValue
        /// The write's `requestId` (PROTOCOL.md "Retry-safe writes").
        var requestId: String
        /// The version of the server's value the write was made on: changes
        /// above it are the ones the write replaces.
        var basedOn: Int64
    }

    /// The remote key.
    var key: String
    /// Whether the server's value is known (false: only a write is kept, and
    /// the mirror takes a snapshot after the restart).
    var isKnown = true
    /// The server's value; nil when the key does not exist.
    var value: JSONValue? = nil
    /// The version of the server's value (0 while the key does not exist).
    var version: Int64
    /// The name of the author of the server's value, if known.
    var authorName: String? = nil
    /// The session of the author of the server's value, if known.
    var authorSession: String? = nil
    /// The revision up to which the key's changes have been seen.
    var revision: Int64
    /// The epoch that `revision` belongs to.
    var epoch: String?
    /// The unacknowledged local write, if there is one.
    var write: Write? = nil
    /// When the entry last changed, in the store's own count: the oldest go
    /// first when the store is over its cap.
    var order: UInt64 = 0
}

extension OfflineEntry {
    /// Decodes what the synthesized encoding wrote, telling a JSON `null`
    /// value (kept as `value: null`) from a key that does not exist (no `value`).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        isKnown = try container.decode(Bool.self, forKey: .isKnown)
        value = container.contains(.value) ? try container.decode(JSONValue.self, forKey: .value) : nil
        version = try container.decode(Int64.self, forKey: .version)
        authorName = try container.decodeIfPresent(String.self, forKey: .authorName)
        authorSession = try container.decodeIfPresent(String.self, forKey: .authorSession)
        revision = try container.decode(Int64.self, forKey: .revision)
        epoch = try container.decodeIfPresent(String.self, forKey: .epoch)
        write = try container.decodeIfPresent(Write.self, forKey: .write)
        order = try container.decode(UInt64.self, forKey: .order)
    }
}
