/// Any frame a server sends: a reply to a request, or an unsolicited event.
///
/// The client library decodes every received line with ``decode(frame:maxDepth:)``.
public enum ServerMessage: Sendable, Equatable {
    /// A reply (the frame has `"ok"`).
    case reply(ReceivedReply)
    /// An event (the frame has `"event"`).
    case event(Event)

    /// The default nesting limit for server frames: a value nested to the server's
    /// limit sits a few levels deeper inside a reply (`values[i].value`).
    public static let defaultMaxDepth = JSONValue.defaultMaxDepth + 8

    /// Decodes one frame from the server (a line without its LF).
    ///
    /// - Throws: A `bad_frame` ``WireError`` saying what is wrong when the frame is
    ///   not JSON, not an object, has neither `"ok"` nor `"event"`, or has malformed
    ///   fields. An unknown event name is such an error, so clients may skip it.
    public static func decode(frame: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(WireError)
        -> ServerMessage
    {
        let value: JSONValue
        do {
            value = try JSONValue.parse(frame, maxDepth: maxDepth)
        } catch {
            throw WireError(code: .badFrame, message: "server sent a frame that is not JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw WireError(code: .badFrame, message: "server sent \(value.kindDescription), not an object")
        }
        if let name = object["event"] {
            let fields = FieldReader(object, errorCode: .badFrame, context: "server event: ")
            guard let name = name.stringValue else {
                throw fields.failure("event", "must be a string, got \(name.kindDescription)")
            }
            return .event(try Event.decode(name: name, from: fields) { object[$0] })
        }
        guard object["ok"] != nil else {
            throw WireError(code: .badFrame, message: "server sent an object with neither \"ok\" nor \"event\"")
        }
        return .reply(try decodeReply(object))
    }

    private static func decodeReply(_ object: JSONObject) throws(WireError) -> ReceivedReply {
        let fields = FieldReader(object, errorCode: .badFrame, context: "server reply: ")
        let id: RequestID?
        switch object["id"] {
        case nil, .null?: id = nil
        case .string(let string)?: id = .string(string)
        case .integer(let integer)?: id = .integer(integer)
        case let other?:
            throw fields.failure("id", "must be a string, an integer or null, got \(other.kindDescription)")
        }
        guard try fields.requiredBool("ok") else {
            return ReceivedReply(
                id: id, outcome: .failure(try decodeError(fields.nested(try fields.requiredObject("error")))))
        }
        return ReceivedReply(id: id, outcome: .success(object))
    }

    private static func decodeError(_ fields: FieldReader<JSONObject>) throws(WireError) -> WireError {
        WireError(
            code: ErrorCode(rawValue: try fields.requiredString("code")),
            message: try fields.optionalString("message") ?? "",
            currentVersion: try fields.optionalInteger("version", minimum: 0),
            revision: try fields.optionalInteger("revision", minimum: 0),
            index: try fields.optionalInteger("index", minimum: 0).map { Int(clamping: $0) }
        )
    }
}
