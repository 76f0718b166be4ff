import ObservatoryHTTP

/// What an HTTP request on the daemon's port asks for, decided from its method
/// and target alone (docs/protocol.md, "HTTP on the same port").
///
/// `HEAD` takes the route of `GET` (the machine then sends the response without
/// its body), except on the streams, which have no length to announce.
///
/// Keys are taken from the raw path and percent-decoded on their own, because
/// decoding the whole path first would turn `%2F` into a `/` that then looks
/// like a path separator.
enum WebRoute: Equatable {
    /// `GET /` (and `HEAD`, as for every route that is not a stream): the live page.
    case livePage
    /// `GET /observatory.js`: the ES module.
    case script
    /// `GET /healthz`.
    case health
    /// `GET /metrics`.
    case metrics
    /// `GET /ws`: the WebSocket upgrade.
    case webSocket
    /// `GET /events`: Server-Sent Events of a key or a prefix.
    case events
    /// `GET /v1/keys/KEY`.
    case getKey(String)
    /// `PUT /v1/keys/KEY`.
    case setKey(String)
    /// `DELETE /v1/keys/KEY`.
    case deleteKey(String)
    /// `GET /v1/keys`: a page of the keys under a prefix.
    case listKeys
    /// `GET /v1/history`: the held changes of a key or prefix.
    case history
    /// `POST /v1/batch`: a batch of sets, deletes and checks.
    case batch
    /// A known path with a method it does not serve: 405 with `Allow`.
    case methodNotAllowed(allow: String)
    /// No such path: 404.
    case notFound

    /// The path that carries keys; a key follows it after one more `/`.
    static let keysPath = "/v1/keys"
    /// The path of `history`.
    static let historyPath = "/v1/history"

    /// The path of batches.
    static let batchPath = "/v1/batch"

    /// The route of `method` on `target`; throws when a key is not valid percent-encoding.
    init(method: String, target: HTTPTarget) throws(HTTPError) {
        let path = target.rawPath
        if path.hasPrefix(Self.keysPath + "/") {
            let key = try HTTPTarget.percentDecoded(path.dropFirst(Self.keysPath.count + 1), plusAsSpace: false)
            switch method {
            case "GET", "HEAD": self = .getKey(key)
            case "PUT": self = .setKey(key)
            case "DELETE": self = .deleteKey(key)
            default: self = .methodNotAllowed(allow: "GET, HEAD, PUT, DELETE")
            }
            return
        }
        if path == Self.batchPath {
            self = method == "POST" ? .batch : .methodNotAllowed(allow: "POST")
            return
        }
        let route: WebRoute? =
            switch path {
            case "/": .livePage
            case "/observatory.js": .script
            case "/healthz": .health
            case "/metrics": .metrics
            case "/ws": .webSocket
            case "/events": .events
            case Self.keysPath: .listKeys
            case Self.historyPath: .history
            default: nil
            }
        guard let route else {
            self = .notFound
            return
        }
        switch method {
        case "GET": self = route
        case "HEAD" where !route.isStream: self = route
        default: self = .methodNotAllowed(allow: route.isStream ? "GET" : "GET, HEAD")
        }
    }

    /// Whether the route answers with a stream (Server-Sent Events, a WebSocket),
    /// which has no length to announce: `HEAD` there is 405, as opening the stream
    /// only to describe it would subscribe, authenticate and hold a connection for nothing.
    var isStream: Bool {
        self == .webSocket || self == .events
    }

    /// Whether a token may come as `?token=` (where browsers cannot set headers).
    var acceptsTokenInQuery: Bool {
        self == .webSocket || self == .events
    }
}
