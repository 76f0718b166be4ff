/// A request target split into its path and query, percent-decoded.
///
/// ```swift
/// let target = try HTTPTarget("/v1/keys?prefix=sky%2F&limit=10")
/// target.path                          // "/v1/keys"
/// target.queryValue(for: "prefix")     // "sky/"
/// ```
///
/// Only the origin form (`/path?query`) is accepted: it is what clients send to a
/// server that is not a proxy. `+` means a space only in the query, as HTML forms
/// encode it; in the path it stays a plus. Because decoding the whole path turns
/// `%2F` into `/`, a route that takes a key from the path should match on
/// ``rawPath`` and decode the key's part alone with ``percentDecoded(_:plusAsSpace:)``.
public struct HTTPTarget: Sendable, Hashable {
    /// One `name=value` pair of the query, both decoded.
    public struct QueryItem: Sendable, Hashable {
        /// The decoded name.
        public var name: String
        /// The decoded value; empty for a bare `name`.
        public var value: String

        /// Creates a pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The path as sent, still percent-encoded.
    public var rawPath: String
    /// The path, percent-decoded.
    public var path: String
    /// The query as sent (without `?`), or `nil` when there is no `?`.
    public var rawQuery: String?
    /// The query's pairs in order, decoded; names may repeat.
    public var queryItems: [QueryItem]

    /// Splits and decodes `target`.
    ///
    /// - Throws: ``HTTPError`` `invalidTarget` (status 400) for a target that does not
    ///   start with `/`, a `%` not followed by two hexadecimal digits, or bytes that
    ///   decode to invalid UTF-8.
    public init(_ target: String) throws(HTTPError) {
        guard target.utf8.first == UInt8(ascii: "/") else {
            throw .invalidTarget("it must start with \"/\"")
        }
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        rawPath = String(pathAndQuery[0])
        path = try Self.percentDecoded(pathAndQuery[0], plusAsSpace: false)
        if pathAndQuery.count == 2 {
            let query = pathAndQuery[1]
            rawQuery = String(query)
            var items: [QueryItem] = []
            for pair in query.split(separator: "&") {
                let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.percentDecoded(nameAndValue[0], plusAsSpace: true)
                let value = nameAndValue.count == 2 ? try Self.percentDecoded(nameAndValue[1], plusAsSpace: true) : ""
                items.append(QueryItem(name: name, value: value))
            }
            queryItems = items
        } else {
            rawQuery = nil
            queryItems = []
        }
    }

    /// The value of the first query pair called `name` (exact case), or `nil`.
    public func queryValue(for name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// `text` with `%XX` escapes decoded (and `+` as a space when `plusAsSpace`).
    ///
    /// - Throws: ``HTTPError`` `invalidTarget` for an invalid escape or invalid UTF-8.
    public static func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool) throws(HTTPError) -> String {
        let utf8 = text.utf8
        let needsDecoding = utf8.contains { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }
        guard needsDecoding else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            if byte == UInt8(ascii: "+") && plusAsSpace {
                bytes.append(ASCII.space)
            } else if byte == UInt8(ascii: "%") {
                guard index != utf8.endIndex, let high = ASCII.hexValue(utf8[index]) else {
                    throw .invalidTarget("\"%\" must be followed by two hexadecimal digits")
                }
                index = utf8.index(after: index)
                guard index != utf8.endIndex, let low = ASCII.hexValue(utf8[index]) else {
                    throw .invalidTarget("\"%\" must be followed by two hexadecimal digits")
                }
                index = utf8.index(after: index)
                bytes.append(UInt8(high << 4 | low))
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidTarget("percent escapes decode to invalid UTF-8")
        }
        return decoded
    }
}
