import ObservatoryHTTP
import ObservatoryWire

/// The HTTP responses of the web face: REST answers made from the session's
/// replies, errors in the protocol's `{"error":{...}}` shape, and fixed content.
enum WebResponse {
    /// The HTTP status of a protocol error code (PROTOCOL.md, "/v1/keys").
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
    /// and `id` with 200, or its `error` with the status of the error's code.
    static func rest(replyLine line: ArraySlice<UInt8>, keepAlive: Bool) -> HTTPResponse {
        guard case .object(var object)? = try? JSONValue.parse(line) else {
            return error(.internalServerError, code: "internal", message: "unreadable reply", keepAlive: false)
        }
        let succeeded = object["ok"]?.boolValue == true
        object["ok"] = nil
        object["id"] = nil
        let status = succeeded ? HTTPStatus.ok : status(of: object["error"]?["code"]?.stringValue ?? "internal")
        return json(status, JSONValue.object(object).encoded(), keepAlive: keepAlive)
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
