/// The name of an operation, as sent in a request's `"op"` field.
///
/// Replies do not repeat the op, so a client keeps the kind of each pending
/// request to read the reply's fields (``ReceivedReply/payload(for:)``).
public enum OperationKind: String, Sendable, Hashable, CaseIterable {
    /// `"hello"`: introduce the connection (name, token, protocol version).
    case hello
    /// `"get"`: read one key.
    case get
    /// `"set"`: write one key.
    case set
    /// `"delete"`: remove one key.
    case delete
    /// `"observe"`: snapshot a key or prefix and receive its later changes as events.
    case observe
    /// `"unobserve"`: stop an observation.
    case unobserve
    /// `"list"`: the keys under a prefix with their versions.
    case list
    /// `"ping"`: an empty round trip.
    case ping
    /// `"history"`: the held changes of a key or prefix, with their authors and times.
    case history
    /// `"batch"`: several sets, deletes and checks applied all or nothing at one revision.
    case batch

    /// The kind named `name`, as `init(rawValue:)` finds it, in a few
    /// instructions: the length and first byte pick the one candidate, and one
    /// comparison confirms it. A `String` switch compares with each case in turn
    /// (about 330 instructions a request, callgrind), on every request the server reads.
    static func named(_ name: String) -> OperationKind? {
        guard let candidate = candidate(count: name.utf8.count, first: name.utf8.first) else { return nil }
        return name == candidate.rawValue ? candidate : nil
    }

    /// The op named by these bytes (UTF-8), compared as bytes; nil for any other name.
    static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> OperationKind? {
        guard let candidate = candidate(count: bytes.count, first: bytes.first) else { return nil }
        var name = candidate.rawValue
        return name.withUTF8 { bytes.holdsBytes(of: $0) } ? candidate : nil
    }

    /// The only op a name of this length and first byte can be.
    private static func candidate(count: Int, first: UInt8?) -> OperationKind? {
        let candidate: OperationKind
        switch (count, first) {
        case (3, UInt8(ascii: "s")): candidate = .set
        case (3, UInt8(ascii: "g")): candidate = .get
        case (4, UInt8(ascii: "p")): candidate = .ping
        case (4, UInt8(ascii: "l")): candidate = .list
        case (5, UInt8(ascii: "h")): candidate = .hello
        case (5, UInt8(ascii: "b")): candidate = .batch
        case (6, _): candidate = .delete
        case (7, UInt8(ascii: "h")): candidate = .history
        case (7, _): candidate = .observe
        case (9, _): candidate = .unobserve
        default: return nil
        }
        return candidate
    }

    /// All op names, comma separated, for error messages.
    static let allNames = allCases.map(\.rawValue).joined(separator: ", ")
}
