import ObservatoryWire

/// The line-protocol frames the web face hands to a connection's `Session`, so
/// that every path (REST, Server-Sent Events, WebSocket) runs the very same
/// operations, checks and limits as a TCP client.
///
/// Built as `JSONValue` objects and encoded, never spliced from strings, so that
/// nothing a client sends (a key, a body) can add a field to the frame; a `set`'s
/// body is spliced in as its bytes only once `EncodedJSON` checked it is one value.
enum SessionLine {
    /// `hello` with a token and a name, either of which may be absent.
    static func hello(token: String?, name: String?, id: Int64) -> [UInt8] {
        var object: JSONObject = ["op": "hello", "id": .integer(id)]
        if let token { object["token"] = .string(token) }
        if let name { object["name"] = .string(name) }
        return line(object)
    }

    /// Any request: `op` and `id` first, then `fields`, then `value` as the bytes
    /// it was sent in (a `set`'s body: the server keeps a value as it was sent).
    static func request(_ operation: String, id: Int64, _ fields: [(String, JSONValue)], value: EncodedJSON? = nil)
        -> [UInt8]
    {
        var object: JSONObject = ["op": .string(operation), "id": .integer(id)]
        for (name, value) in fields { object[name] = value }
        guard let value else { return line(object) }
        var bytes = JSONValue.object(object).encoded()
        bytes.removeLast() // the object's closing brace, written again after the value
        bytes.append(contentsOf: #","value":"#.utf8)
        value.encode(into: &bytes)
        bytes.append(contentsOf: "}\n".utf8)
        return bytes
    }

    /// A WebSocket text message as one frame: a line break inside it (JSON allows
    /// them between tokens) becomes a space, so one message stays one frame.
    static func message(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] == 10 || bytes[index] == 13 {
            bytes[index] = 32
        }
        bytes.append(10)
        return bytes
    }

    private static func line(_ object: JSONObject) -> [UInt8] {
        var bytes = JSONValue.object(object).encoded()
        bytes.append(10)
        return bytes
    }
}
