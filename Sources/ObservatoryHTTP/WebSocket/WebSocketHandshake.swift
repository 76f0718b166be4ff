/// The opening handshake of RFC 6455 §4: checking an upgrade request and building
/// the answer on the server side, making a key and checking the answer on the client side.
///
/// ```swift
/// switch WebSocketHandshake.respond(to: head) {
/// case .accept(let response): send(response.encoded()); switchToWebSocket()
/// case .reject(let response, _): send(response.encoded())
/// }
/// ```
public enum WebSocketHandshake {
    /// The GUID that RFC 6455 appends to the client's key before hashing it.
    public static let keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The only protocol version there is, and the one this module speaks.
    public static let version = "13"

    /// What to answer an upgrade request with.
    public enum Outcome: Sendable, Hashable {
        /// A valid request: the 101 response to send, after which frames flow.
        case accept(HTTPResponse)
        /// An invalid request: the error response to send, and why, for the log.
        case reject(HTTPResponse, reason: String)
    }

    /// Checks an upgrade request and builds the response.
    ///
    /// The request must be a `GET` (else 405 with `Allow: GET`) over HTTP/1.1 (else 400)
    /// with `Upgrade: websocket` and `Connection: upgrade` as tokens in any case (else
    /// 400), `Sec-WebSocket-Version: 13` (else 426 with `Sec-WebSocket-Version: 13`, so
    /// the client can retry) and a `Sec-WebSocket-Key` that is base64 of 16 bytes
    /// (else 400). `headers` are added to the 101 response (such as a chosen subprotocol).
    public static func respond(to head: HTTPRequestHead, headers: HTTPHeaders = HTTPHeaders()) -> Outcome {
        guard head.method == "GET" else {
            return reject(.methodNotAllowed, "a WebSocket upgrade must be a GET request", headers: ["Allow": "GET"])
        }
        guard head.version == .http1Point1 else {
            return reject(.badRequest, "a WebSocket upgrade needs HTTP/1.1")
        }
        guard head.headers.listContains("websocket", for: "Upgrade") else {
            return reject(.badRequest, "the Upgrade header must name websocket")
        }
        guard head.headers.listContains("upgrade", for: "Connection") else {
            return reject(.badRequest, "the Connection header must contain upgrade")
        }
        guard head.headers.values(for: "Sec-WebSocket-Version") == [version] else {
            return reject(
                .upgradeRequired, "only WebSocket version 13 is supported",
                headers: ["Sec-WebSocket-Version": version])
        }
        let keys = head.headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else {
            return reject(.badRequest, "Sec-WebSocket-Key must be the base64 of 16 bytes")
        }
        var response = HTTPResponse(
            status: .switchingProtocols,
            headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": acceptValue(forKey: key),
            ])
        for field in headers { response.headers.add(name: field.name, value: field.value) }
        return .accept(response)
    }

    /// `Sec-WebSocket-Accept` for a key: base64 of the SHA-1 of the key and ``keyGUID``.
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + keyGUID).utf8)))
    }

    /// A fresh `Sec-WebSocket-Key` for a client: base64 of 16 random bytes.
    public static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether a server's response accepts the upgrade a client asked for with `key`:
    /// 101, `Upgrade: websocket`, `Connection: upgrade` and the right accept value.
    public static func accepts(_ response: HTTPResponseHead, key: String) -> Bool {
        response.status.code == 101 && response.headers.listContains("websocket", for: "Upgrade")
            && response.headers.listContains("upgrade", for: "Connection")
            && response.headers["Sec-WebSocket-Accept"] == acceptValue(forKey: key)
    }

    private static func reject(_ status: HTTPStatus, _ reason: String, headers: HTTPHeaders = HTTPHeaders()) -> Outcome
    {
        var response = HTTPResponse(status: status, headers: headers, body: Array(reason.utf8))
        response.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        return .reject(response, reason: reason)
    }
}
