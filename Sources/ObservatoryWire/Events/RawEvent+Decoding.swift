extension ServerEvent where Value == EncodedJSON {
    /// Reads an event frame (a line without its LF), keeping its values as the
    /// bytes that were sent: how a server reads back the events it kept, without
    /// building the values' trees. Accepts and rejects what
    /// ``ServerMessage/decode(frame:maxDepth:)`` does for an event frame.
    ///
    /// - Throws: a `bad_frame` ``WireError`` when the frame is not an event
    ///   object or its fields are malformed.
    public static func decode(frame: some Collection<UInt8>, maxDepth: Int = ServerMessage.defaultMaxDepth)
        throws(WireError) -> RawEvent
    {
        let found: [EncodedJSON.Member]?
        do {
            found = try EncodedJSON.members(ofObject: frame, maxDepth: maxDepth)
        } catch {
            throw WireError(code: .badFrame, message: "server sent a frame that is not JSON: \(error)")
        }
        guard let members = found else {
            throw WireError(code: .badFrame, message: "server sent an event that is not an object")
        }
        // The small fields as a tree; the values as bytes. A repeated name keeps its last value.
        var old: EncodedJSON?
        var new: EncodedJSON?
        var others: [(String, JSONValue)] = []
        for member in members {
            switch member.name {
            case "old": old = member.value
            case "new": new = member.value
            default: others.append((member.name, member.value.decoded()))
            }
        }
        let fields = FieldReader(JSONObject(others), errorCode: .badFrame, context: "server event: ")
        return try decode(name: try fields.requiredString("event"), from: fields) { $0 == "old" ? old : new }
    }
}
