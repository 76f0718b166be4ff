/// The header fields of a message, in the order they were sent or added.
///
/// Names compare without regard to ASCII case, as HTTP defines them, but keep the
/// spelling they were given, so an encoded message shows what the caller wrote.
/// A name may appear several times (`Set-Cookie`, or a list split over lines);
/// ``values(for:)`` returns every value, the subscript the first.
///
/// ```swift
/// var headers: HTTPHeaders = ["Host": "127.0.0.1:2379", "Content-Type": "application/json"]
/// headers.add(name: "Accept", value: "application/json")
/// headers["content-type"]  // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field: a name and its value, without surrounding whitespace.
    public struct Field: Sendable, Hashable {
        /// The name as given (compare it with ``HTTPHeaders/nameMatches(_:_:)``).
        public var name: String
        /// The value, without leading or trailing spaces and tabs.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// No headers.
    public init() {
        fields = []
    }

    /// The headers in the order given; names may repeat.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// The headers of a literal, in its order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields, counting repeated names once per field.
    public var count: Int {
        fields.count
    }

    /// Whether there are no fields.
    public var isEmpty: Bool {
        fields.isEmpty
    }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The first value of the field called `name` (any case), or `nil`.
    public subscript(name: String) -> String? {
        for field in fields where Self.nameMatches(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of the fields called `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.nameMatches($0.name, name) }.map(\.value)
    }

    /// Whether a field called `name` (any case) is present.
    public func contains(name: String) -> Bool {
        fields.contains { Self.nameMatches($0.name, name) }
    }

    /// The comma-separated elements of every field called `name`, trimmed, empty
    /// ones dropped: `Connection: keep-alive, Upgrade` gives `["keep-alive", "Upgrade"]`.
    public func listElements(for name: String) -> [Substring] {
        var elements: [Substring] = []
        for field in fields where Self.nameMatches(field.name, name) {
            for element in field.value.split(separator: ",") {
                let trimmed = element.trimmingSpacesAndTabs()
                if !trimmed.isEmpty { elements.append(trimmed) }
            }
        }
        return elements
    }

    /// Whether the comma-separated list in the fields called `name` holds `token`
    /// (any case): `Connection: keep-alive, Upgrade` holds `upgrade`.
    public func listContains(_ token: String, for name: String) -> Bool {
        listElements(for: name).contains { Self.nameMatches($0, token) }
    }

    /// Appends a field, keeping any others of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name` and appends one with `value`.
    public mutating func replace(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(name: String) {
        fields.removeAll { Self.nameMatches($0.name, name) }
    }

    /// Whether the connection stays open after a message of `version` with these
    /// headers: HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with
    /// `Connection: keep-alive`.
    public func keepAlive(for version: HTTPVersion) -> Bool {
        let connection = listElements(for: "Connection")
        if connection.contains(where: { Self.nameMatches($0, "close") }) { return false }
        if version.major == 1 && version.minor == 0 {
            return connection.contains { Self.nameMatches($0, "keep-alive") }
        }
        return true
    }

    /// `Name: value` lines, for logs.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Whether two names are equal ignoring ASCII case, without allocating.
    public static func nameMatches(_ left: some StringProtocol, _ right: some StringProtocol) -> Bool {
        var leftBytes = left.utf8.makeIterator()
        var rightBytes = right.utf8.makeIterator()
        while true {
            switch (leftBytes.next(), rightBytes.next()) {
            case (nil, nil):
                return true
            case (let leftByte?, let rightByte?):
                if ASCII.lowercased(leftByte) != ASCII.lowercased(rightByte) { return false }
            default:
                return false
            }
        }
    }
}
