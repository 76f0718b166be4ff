import ObservatoryHTTP
import ObservatoryWire

/// The HTTP responses of the web face: REST answers made from the session's
/// replies, errors in the protocol's `{"error":{...}}` shape, and fixed content.
enum WebResponse {
    /// The HTTP status of a protocol error code (docs/protocol.md, "/v1/keys").
    static func status(of code: String) -> HTTPStatus {
        switch code {
        case "bad_request", "bad_frame", "invalid_key", "unknown_op": .badRequest
        case "unauthenticated": .unauthorized
        case "forbidden": .forbidden
        case "not_found": .notFound
        case "conflict": .conflict
        case "value_too_large", "frame_too_large": .contentTooLarge
        case "limit_exceeded": .tooManyRequests
        case "unavailable", "shutting_down", "slow_consumer": .serviceUnavailable
        default: .internalServerError
        }
    }

    /// A reply line of the session as a REST response: its fields without `ok`
    /// and `id` with 200, or its `error` with the status of the error's code. The
    /// fields are copied as the bytes they are in the reply, so a value comes back
    /// exactly as it was set, and is never decoded into a tree on its way.
    static func rest(replyLine line: ArraySlice<UInt8>, keepAlive: Bool) -> HTTPResponse {
        // The reply holds a value one level below its top.
        guard let members = try? EncodedJSON.members(ofObject: line, maxDepth: JSONValue.defaultMaxDepth + 1) else {
            return error(.internalServerError, code: "internal", message: "unreadable reply", keepAlive: false)
        }
        var succeeded = false
        var code = "internal"
        var body: [UInt8] = [UInt8(ascii: "{")]
        for (name, value) in members {
            switch name {
            case "ok":
                succeeded = value.bytes.elementsEqual("true".utf8)
            case "id":
                continue
            default:
                if name == "error", let found = (try? JSONValue.parse(value.bytes))?["code"]?.stringValue {
                    code = found
                }
                if body.count > 1 { body.append(UInt8(ascii: ",")) }
                body += JSONValue.string(name).encoded()
                body.append(UInt8(ascii: ":"))
                body += value.bytes
            }
        }
        body.append(UInt8(ascii: "}"))
        return json(succeeded ? .ok : status(of: code), body, keepAlive: keepAlive)
    }

    /// An error response: `{"error":{"code":…,"message":…}}`.
    static func error(_ status: HTTPStatus, code: String, message: String, keepAlive: Bool) -> HTTPResponse {
        let body: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
        return json(status, body.encoded(), keepAlive: keepAlive)
    }

    /// A JSON body with `status`.
    static func json(_ status: HTTPStatus, _ body: [UInt8], keepAlive: Bool) -> HTTPResponse {
        content(status, type: "application/json", body: body, keepAlive: keepAlive)
    }

    /// Any body with its content type; `Connection: close` when the connection ends after it.
    static func content(_ status: HTTPStatus, type: String, body: [UInt8], keepAlive: Bool) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: ["Content-Type": type], body: body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        if !keepAlive { response.headers.add(name: "Connection", value: "close") }
        return response
    }

    /// The failure a reply line carries, if it is one: its error code.
    static func failureCode(of line: ArraySlice<UInt8>) -> String? {
        guard line.starts(with: Array(#"{"ok":false"#.utf8)) else { return nil }
        return (try? JSONValue.parse(line))?["error"]?["code"]?.stringValue ?? "internal"
    }
}
