/// The members of a JSON object: unique keys in the order they were first sent.
///
/// Order matters only for output (what a client sent is written back the same
/// way); equality and hashing ignore it, because JSON objects are unordered.
///
/// Lookups scan the members, which is fastest for the small objects the protocol
/// carries; code that looks up many keys of a large object should build a
/// `Dictionary` once from ``members``.
///
/// Duplicate keys: the last value wins and the key keeps its first position. The
/// parser, the literal initializer and ``init(_:)`` all follow this rule.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member of an object.
    public typealias Member = (key: String, value: JSONValue)

    /// The members in order; keys are unique.
    public private(set) var members: [Member]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object from key/value pairs; a repeated key keeps its first position and its last value.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        var builder = JSONObjectBuilder()
        for (key, value) in pairs {
            builder.insert(key: key, value: value)
        }
        self = builder.object
    }

    /// An object from a dictionary literal, in literal order; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Wraps members already known to have unique keys (the parser's and builder's output).
    @usableFromInline
    package init(uniqueMembers: [Member]) {
        members = uniqueMembers
    }

    /// The position of the first member.
    public var startIndex: Int { members.startIndex }
    /// The position after the last member.
    public var endIndex: Int { members.endIndex }
    /// The member at `position`.
    public subscript(position: Int) -> Member { members[position] }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            members.first { $0.key == key }?.value
        }
        set {
            let position = members.firstIndex { $0.key == key }
            switch (position, newValue) {
            case (let position?, let value?):
                members[position].value = value
            case (let position?, nil):
                members.remove(at: position)
            case (nil, let value?):
                members.append((key, value))
            case (nil, nil):
                break
            }
        }
    }

    /// Same members, regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        if lhs.members.count <= JSONObjectBuilder.linearSearchLimit {
            return lhs.members.allSatisfy { member in rhs[member.key] == member.value }
        }
        let right = Dictionary(rhs.members, uniquingKeysWith: { _, last in last })
        return lhs.members.allSatisfy { member in right[member.key] == member.value }
    }

    /// Hashes independently of member order, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        // Combining per-member hashes with a commutative operation makes the
        // result independent of order, as Dictionary does.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}
