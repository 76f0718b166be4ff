import ObservatoryHTTP
import ObservatoryWire

extension HTTPConnectionMachine {
    /// Answers one complete request: at once for what needs no session, else by
    /// handing the session its frame and owing the response until the reply.
    mutating func handle(_ head: HTTPRequestHead, body: [UInt8], _ context: WebContext) {
        let keepAlive = head.keepAlive
        if !keepAlive { stopsDecoding = true }
        let target: HTTPTarget
        let route: WebRoute
        do throws(HTTPError) {
            target = try HTTPTarget(head.target)
            route = try WebRoute(method: head.method, target: target)
        } catch {
            reject(error)
            return
        }
        switch route {
        case .livePage:
            respond(
                WebResponse.content(.ok, type: "text/html; charset=utf-8", body: LivePage.html, keepAlive: keepAlive))
        case .script:
            respond(
                WebResponse.content(
                    .ok, type: "text/javascript; charset=utf-8", body: ObservatoryScript.javascript,
                    keepAlive: keepAlive))
        case .health:
            let status: HTTPStatus = context.isServing ? .ok : .serviceUnavailable
            let text = context.isServing ? "ok" : "shutting down"
            respond(
                WebResponse.content(
                    status, type: "text/plain; charset=utf-8", body: Array(text.utf8), keepAlive: keepAlive))
        case .metrics:
            respond(
                WebResponse.content(
                    .ok, type: "text/plain; version=0.0.4; charset=utf-8", body: context.metrics(),
                    keepAlive: keepAlive))
        case .notFound:
            answerError(.notFound, code: "not_found", message: "no such path", keepAlive: keepAlive)
        case .methodNotAllowed(let allow):
            answeredErrorCodes.append(.badRequest)
            var response = WebResponse.error(
                .methodNotAllowed, code: "bad_request", message: "\(head.method) is not served here",
                keepAlive: false)
            response.headers.add(name: "Allow", value: allow)
            respond(response)
        case .getKey(let key):
            guard authenticate(head, target, route) else { return }
            submit("get", [("key", .string(key))], keepAlive: keepAlive)
        case .setKey(let key):
            setKey(key, head: head, body: body, target: target, keepAlive: keepAlive)
        case .deleteKey(let key):
            guard let fields = writeFields(head, keepAlive: keepAlive),
                authenticate(head, target, route)
            else { return }
            submit("delete", [("key", .string(key))] + fields, keepAlive: keepAlive)
        case .listKeys:
            listKeys(head, target: target, keepAlive: keepAlive)
        case .history:
            history(head, target: target, keepAlive: keepAlive)
        case .batch:
            batch(head, body: body, target: target, keepAlive: keepAlive)
        case .events:
            startEvents(head, target: target)
        case .webSocket:
            upgrade(head, target: target)
        }
    }

    private mutating func setKey(
        _ key: String, head: HTTPRequestHead, body: [UInt8], target: HTTPTarget, keepAlive: Bool
    ) {
        guard let value = try? EncodedJSON(validating: body) else {
            answerError(
                .badRequest, code: "bad_frame", message: Self.notJSONMessage(body), keepAlive: keepAlive)
            return
        }
        guard var fields = writeFields(head, keepAlive: keepAlive), authenticate(head, target, .setKey(key)) else {
            return
        }
        // `?ttl=S` is set's `ttl`; the op's decoding checks its range.
        if let ttl = target.queryValue(for: "ttl") {
            guard let seconds = Int64(ttl) else {
                answerError(
                    .badRequest, code: "bad_request",
                    message: "ttl must be a whole number of seconds from 1 to \(RequestLimits.maxTTLSeconds)",
                    keepAlive: keepAlive)
                return
            }
            fields.append(("ttl", .integer(seconds)))
        }
        submit("set", [("key", .string(key))] + fields, value: value, keepAlive: keepAlive)
    }

    /// `POST /v1/batch`: the body's `ops` as a `batch`, with `requestId` from
    /// `Idempotency-Key`; the session checks the operations as on the protocol.
    private mutating func batch(_ head: HTTPRequestHead, body: [UInt8], target: HTTPTarget, keepAlive: Bool) {
        guard let parsed = try? JSONValue.parse(body) else {
            answerError(.badRequest, code: "bad_frame", message: Self.notJSONMessage(body), keepAlive: keepAlive)
            return
        }
        guard let object = parsed.objectValue else {
            answerError(
                .badRequest, code: "bad_request", message: "the body must be an object such as {\"ops\":[...]}",
                keepAlive: keepAlive)
            return
        }
        guard authenticate(head, target, .batch) else { return }
        var fields = object["ops"].map { [("ops", $0)] } ?? []
        if let requestId = head.headers["Idempotency-Key"] { fields.append(("requestId", .string(requestId))) }
        submit("batch", fields, keepAlive: keepAlive)
    }

    /// `ifVersion` from `If-Match` (a bare or quoted integer) and `requestId`
    /// from `Idempotency-Key`; `nil` after answering 400 for a malformed one.
    private mutating func writeFields(_ head: HTTPRequestHead, keepAlive: Bool) -> [(String, JSONValue)]? {
        var fields: [(String, JSONValue)] = []
        if let match = head.headers["If-Match"] {
            var text = Substring(match)
            if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
            guard let version = Int64(text), version >= 0 else {
                answerError(
                    .badRequest, code: "bad_request", message: "If-Match must be a version, such as 12 or \"12\"",
                    keepAlive: keepAlive)
                return nil
            }
            fields.append(("ifVersion", .integer(version)))
        }
        if let requestId = head.headers["Idempotency-Key"] {
            fields.append(("requestId", .string(requestId)))
        }
        return fields
    }

    private mutating func listKeys(_ head: HTTPRequestHead, target: HTTPTarget, keepAlive: Bool) {
        var fields: [(String, JSONValue)] = [("prefix", .string(target.queryValue(for: "prefix") ?? ""))]
        if let after = target.queryValue(for: "after") { fields.append(("after", .string(after))) }
        if let limit = target.queryValue(for: "limit") {
            guard let number = Int64(limit) else {
                answerError(
                    .badRequest, code: "bad_request", message: "limit must be an integer", keepAlive: keepAlive)
                return
            }
            fields.append(("limit", .integer(number)))
        }
        guard authenticate(head, target, .listKeys) else { return }
        submit("list", fields, keepAlive: keepAlive)
    }

    /// `GET /v1/history?key=K` (or `prefix=P`) with `author`, `session`, `from`,
    /// `to`, `limit` and `newestFirst=true` as the `history` op's fields; the
    /// session checks them, as it does a request on this protocol.
    private mutating func history(_ head: HTTPRequestHead, target: HTTPTarget, keepAlive: Bool) {
        var fields: [(String, JSONValue)] = []
        for (query, field) in [("key", "key"), ("prefix", "prefix"), ("author", "author"), ("session", "session")] {
            if let value = target.queryValue(for: query) { fields.append((field, .string(value))) }
        }
        for (query, field) in [("from", "fromRevision"), ("to", "toRevision"), ("limit", "limit")] {
            guard let text = target.queryValue(for: query) else { continue }
            guard let number = Int64(text) else {
                answerError(
                    .badRequest, code: "bad_request", message: "\(query) must be an integer", keepAlive: keepAlive)
                return
            }
            fields.append((field, .integer(number)))
        }
        if let newestFirst = target.queryValue(for: "newestFirst") {
            guard newestFirst == "true" || newestFirst == "false" else {
                answerError(
                    .badRequest, code: "bad_request", message: "newestFirst must be true or false",
                    keepAlive: keepAlive)
                return
            }
            fields.append(("newestFirst", .bool(newestFirst == "true")))
        }
        guard authenticate(head, target, .history) else { return }
        submit("history", fields, keepAlive: keepAlive)
    }

    private mutating func startEvents(_ head: HTTPRequestHead, target: HTTPTarget) {
        let key = target.queryValue(for: "key")
        let prefix = target.queryValue(for: "prefix")
        guard (key == nil) != (prefix == nil) else {
            answerError(
                .badRequest, code: "bad_request", message: "give exactly one of ?key= and ?prefix=",
                keepAlive: head.keepAlive)
            return
        }
        guard authenticate(head, target, .events) else { return }
        var fields: [(String, JSONValue)] = key.map { [("key", .string($0))] } ?? [("prefix", .string(prefix ?? ""))]
        if let slow = target.queryValue(for: "slow") { fields.append(("slow", .string(slow))) }
        let lastEventID = head.headers["Last-Event-ID"]
        if let lastEventID, let point = StreamEvent.resumePoint(lastEventID: lastEventID) {
            fields.append(("fromRevision", .integer(point.revision)))
            fields.append(("epoch", .string(point.epoch)))
        }
        pendingSessionBytes.append(contentsOf: SessionLine.request("observe", id: takeRequestID(), fields))
        expectations.append(.eventStream(resuming: lastEventID != nil, chunked: head.version == .http1Point1))
        ignoresInput = true
        stopsDecoding = true
        request = nil
    }

    private mutating func upgrade(_ head: HTTPRequestHead, target: HTTPTarget) {
        switch WebSocketHandshake.respond(to: head) {
        case .reject(var response, _):
            response.headers.add(name: "Connection", value: "close")
            respond(response)
        case .accept(let response):
            expectations.append(.upgrade(response.encoded()))
            stopsDecoding = true
            _ = authenticate(head, target, .webSocket)
            let remaining = decoder.takeRemainingBytes()
            webSocket = WebSocketConnection(role: .server, maxMessageBytes: maxFrameBytes)
            if !remaining.isEmpty { receive(remaining) }
        }
    }

    /// Sends the session a `hello` for the request's token (`Authorization:
    /// Bearer`, or `?token=` where the route allows it) or `?name=`, once per
    /// connection; false after answering 401 for a second, different token.
    private mutating func authenticate(_ head: HTTPRequestHead, _ target: HTTPTarget, _ route: WebRoute) -> Bool {
        let token =
            Self.bearerToken(head.headers) ?? (route.acceptsTokenInQuery ? target.queryValue(for: "token") : nil)
        let name = target.queryValue(for: "name")
        guard token != nil || name != nil else { return true }
        if let sent = helloToken {
            if token == nil || token == sent { return true }
            guard sent == nil else {
                answerError(
                    .unauthorized, code: "unauthenticated", message: "one connection carries one token",
                    keepAlive: false)
                return false
            }
        }
        helloToken = .some(token)
        pendingSessionBytes.append(contentsOf: SessionLine.hello(token: token, name: name, id: takeRequestID()))
        expectations.append(.hello(omitsBody: answersHeadRequest))
        return true
    }

    private mutating func submit(
        _ operation: String, _ fields: [(String, JSONValue)], value: EncodedJSON? = nil, keepAlive: Bool
    ) {
        pendingSessionBytes.append(
            contentsOf: SessionLine.request(operation, id: takeRequestID(), fields, value: value))
        expectations.append(.rest(keepAlive: keepAlive, omitsBody: answersHeadRequest))
    }

    private mutating func takeRequestID() -> Int64 {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// The token of `Authorization: Bearer TOKEN`, the scheme in any case.
    static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].drop { $0 == " " }
        return token.isEmpty ? nil : String(token)
    }
}

extension HTTPConnectionMachine {
    /// Why a `PUT` body is refused: not one JSON value; a body that looks like a
    /// bare word gets the hint to quote it, the usual slip with `curl -d red`.
    static func notJSONMessage(_ body: [UInt8]) -> String {
        let message = "the body must be one JSON value"
        guard let first = body.first(where: { !" \t\r\n".utf8.contains($0) }),
            !"{[\"-0123456789".utf8.contains(first)
        else { return message }
        return message + "; a string goes in double quotes, as in curl -X PUT URL -d '\"red\"'"
    }

    /// Answers an error made without the session, and remembers its code for
    /// `observatory_errors_total` (the session counts its own).
    mutating func answerError(_ status: HTTPStatus, code: String, message: String, keepAlive: Bool) {
        answeredErrorCodes.append(ErrorCode(rawValue: code))
        respond(WebResponse.error(status, code: code, message: message, keepAlive: keepAlive))
    }
}
