/// A request's `"id"`: chosen by the client, echoed verbatim in the reply so that
/// pipelined requests can be matched to their replies.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    /// A string id, such as `"a7"`.
    case string(String)
    /// An integer id, such as `7`.
    case integer(Int64)

    /// The id as it appears in JSON.
    public var description: String {
        switch self {
        case .string(let string): return JSONValue.string(string).description
        case .integer(let integer): return String(integer)
        }
    }

    /// Appends the id, or `null` when there is none, as JSON.
    static func write(_ id: RequestID?, into buffer: inout [UInt8]) {
        switch id {
        case .string(let string)?: JSONWriter.write(string, into: &buffer)
        case .integer(let integer)?: JSONWriter.write(integer, into: &buffer)
        case nil: JSONWriter.writeLiteral("null", into: &buffer)
        }
    }
}
