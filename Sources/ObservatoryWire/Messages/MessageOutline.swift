/// The few members of a server line that say what it is, read without decoding
/// the rest: its `event` name, its `version`, and the `revision` of its `error`.
///
/// The web face forwards every line of a session to an event stream as one
/// Server-Sent Event named after the line, with its version as the event's id.
/// Decoding each line into a tree for that, once per observer and event, would
/// undo what encoding an event once buys; this reads those members and skips
/// every other value in place (values are checked as they are skipped, so a line
/// that is not valid JSON has no outline).
///
/// ```swift
/// let line = Array(#"{"event":"update","key":"k","new":{"version":9},"version":12}"#.utf8)
/// MessageOutline(line: line)?.event     // "update"
/// MessageOutline(line: line)?.version   // 12: the top level's, not the value's
/// ```
public struct MessageOutline: Sendable, Equatable {
    /// The top-level `event` member, when it is a string (`update`, `delete`, `shutdown`).
    public var event: String?
    /// The top-level `version` member, when it is an integer.
    public var version: Int64?
    /// The `revision` inside the top-level `error` object (a `slow_consumer` or
    /// `unavailable` error says up to where events were sent).
    public var errorRevision: Int64?

    /// Creates an outline with the given members.
    public init(event: String? = nil, version: Int64? = nil, errorRevision: Int64? = nil) {
        self.event = event
        self.version = version
        self.errorRevision = errorRevision
    }

    /// Reads the outline of one line (without its LF); nil when the line is not
    /// one valid JSON object.
    public init?(line: some Collection<UInt8>) {
        var reader = Reader()
        let isObject =
            line.withContiguousStorageIfAvailable { Self.read($0, into: &reader) }
            ?? Array(line).withUnsafeBufferPointer { Self.read($0, into: &reader) }
        guard isObject else { return nil }
        self = reader.outline
    }

    /// Whether `bytes` are one valid JSON object, whose members went to `reader`.
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, into reader: inout Reader) -> Bool {
        do {
            return try JSONParser.parseMembers(of: bytes, maxDepth: ServerMessage.defaultMaxDepth, into: &reader) == nil
        } catch {
            return false
        }
    }

    /// Keeps the three members and skips every other value.
    private struct Reader: JSONMemberCollector {
        enum Member {
            case event, version, error, other
        }

        var outline = MessageOutline()

        static func name(_ bytes: UTF8Span) -> Member {
            bytes.span.withUnsafeBufferPointer { name in
                if name.elementsEqual("event".utf8) { return .event }
                if name.elementsEqual("version".utf8) { return .version }
                if name.elementsEqual("error".utf8) { return .error }
                return .other
            }
        }

        mutating func readValue(named name: Member, from parser: inout JSONParser) throws(JSONParseError) {
            switch name {
            case .other:
                try parser.skipValue()
            case .event:
                outline.event = try parser.parseValue(JSONTreeMaker.self).stringValue
            case .version:
                outline.version = try parser.parseValue(JSONTreeMaker.self).integerValue
            case .error:
                // Errors are rare and small: a tree is fine here.
                outline.errorRevision = try parser.parseValue(JSONTreeMaker.self)["revision"]?.integerValue
            }
        }
    }
}
