/// Collects object members with unique keys (last value wins, first position kept)
/// in time linear in the number of members.
///
/// Small objects are checked for duplicates by scanning; past
/// ``linearSearchLimit`` members an index is built, so a hostile frame with many
/// keys cannot make parsing quadratic.
@usableFromInline
package struct JSONObjectBuilder {
    /// Up to this many members a scan is cheaper than hashing.
    @usableFromInline
    package static let linearSearchLimit = 16
    /// Members reserved at the first insertion.
    @usableFromInline
    package static let initialCapacity = 4

    @usableFromInline
    package var members: [JSONObject.Member] = []
    @usableFromInline
    package var positions: [String: Int]? = nil

    @inlinable
    package init() {}

    @inlinable
    package mutating func insert(key: String, value: JSONValue) {
        if let position = position(of: key) {
            members[position].value = value
            return
        }
        if members.isEmpty {
            // Most objects of the protocol have a handful of members: one allocation
            // for them, where growing one at a time would reallocate three times.
            members.reserveCapacity(Self.initialCapacity)
        }
        members.append((key, value))
        if positions != nil {
            positions?[key] = members.count - 1
        } else if members.count > Self.linearSearchLimit {
            positions = Dictionary(
                members.enumerated().map { ($0.element.key, $0.offset) },
                uniquingKeysWith: { first, _ in first }
            )
        }
    }

    @inlinable
    package func position(of key: String) -> Int? {
        if let positions {
            return positions[key]
        }
        return members.firstIndex { $0.key == key }
    }

    @inlinable
    package var object: JSONObject {
        JSONObject(uniqueMembers: members)
    }
}

extension JSONObjectBuilder: JSONMemberCollector {
    @inlinable
    package static func name(_ bytes: UTF8Span) -> String {
        String(copying: bytes)
    }

    @inlinable
    package mutating func readValue(named name: String, from parser: inout JSONParser) throws(JSONParseError) {
        insert(key: name, value: try parser.parseValue(JSONTreeMaker.self))
    }
}
