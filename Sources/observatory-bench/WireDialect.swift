/// How the driver talks to the server under test: the requests it sends, and how it
/// cuts received bytes into frames and tells replies from events.
///
/// Both servers get the same operations, so the scenarios are written once:
/// observatoryd's `observe`/`set`/`ping` JSON lines (over TCP, or one per WebSocket
/// text message over `GET /ws`), Redis's SUBSCRIBE/PUBLISH (fan-out), SET
/// (writes) and PING in RESP2, and etcd's JSON gateway (`POST /v3/kv/put` for
/// writes, a status request for ping; it has no observe or publish here).
enum WireDialect: Sendable {
    case observatory
    case observatoryWebSocket
    case redis
    case etcdGateway

    /// One received frame, as much as the scenarios need to know of it.
    enum Frame: Equatable {
        /// The answer to a request (Redis's subscribe confirmation and the WebSocket
        /// upgrade's response count as one).
        case reply(ok: Bool)
        /// A change pushed to an observer, carrying the write's send stamp.
        case event(timestamp: UInt64)
        /// Anything else: another kind of event, an empty line.
        case other
    }

    /// A frame and where the next one starts.
    struct Scanned {
        let frame: Frame
        let end: Int
    }

    /// Appends the request that makes this connection receive every change of `key`.
    ///
    /// etcd's watch is a stream of chunks the driver does not read: no scenario observes etcd.
    func appendObserve(_ key: String, to output: inout [UInt8]) {
        switch self {
        case .etcdGateway: preconditionFailure("no scenario observes through etcd's gateway")
        case .observatory: JSONLineFrames.appendRequest(op: "observe", key: key, value: nil, to: &output)
        case .observatoryWebSocket: WebSocketFrames.appendRequest(op: "observe", key: key, value: nil, to: &output)
        case .redis: RESPFrames.appendCommand("SUBSCRIBE", key: key, value: nil, to: &output)
        }
    }

    /// Appends the request that makes this connection receive every change of the keys
    /// that start with `prefix`; observatoryd only (Redis's pattern messages and etcd's
    /// watch stream are not read by the driver).
    func appendObserve(prefix: String, to output: inout [UInt8]) {
        switch self {
        case .observatory:
            JSONLineFrames.appendRequest(op: "observe", key: prefix, value: nil, keyMember: "prefix", to: &output)
        case .observatoryWebSocket:
            WebSocketFrames.appendRequest(op: "observe", key: prefix, value: nil, keyMember: "prefix", to: &output)
        case .redis, .etcdGateway: preconditionFailure("no scenario observes a prefix on \(serverName)")
        }
    }

    /// Appends the request that sends `value` to every observer of `key`.
    func appendPublish(_ key: String, _ value: [UInt8], to output: inout [UInt8]) {
        switch self {
        case .etcdGateway: EtcdGatewayFrames.appendPut(key: key, value: value, to: &output)
        case .observatory: JSONLineFrames.appendRequest(op: "set", key: key, value: value, to: &output)
        case .observatoryWebSocket: WebSocketFrames.appendRequest(op: "set", key: key, value: value, to: &output)
        case .redis: RESPFrames.appendCommand("PUBLISH", key: key, value: value, to: &output)
        }
    }

    /// Appends the request that stores `value` under `key`.
    func appendSet(_ key: String, _ value: [UInt8], to output: inout [UInt8]) {
        switch self {
        case .etcdGateway: EtcdGatewayFrames.appendPut(key: key, value: value, to: &output)
        case .observatory: JSONLineFrames.appendRequest(op: "set", key: key, value: value, to: &output)
        case .observatoryWebSocket: WebSocketFrames.appendRequest(op: "set", key: key, value: value, to: &output)
        case .redis: RESPFrames.appendCommand("SET", key: key, value: value, to: &output)
        }
    }

    /// Appends a request that only gets a reply.
    func appendPing(to output: inout [UInt8]) {
        switch self {
        case .observatory: JSONLineFrames.appendRequest(op: "ping", key: nil, value: nil, to: &output)
        case .observatoryWebSocket: WebSocketFrames.appendRequest(op: "ping", key: nil, value: nil, to: &output)
        case .redis: RESPFrames.appendCommand("PING", key: nil, value: nil, to: &output)
        case .etcdGateway: EtcdGatewayFrames.appendStatus(to: &output)
        }
    }

    /// What a new connection sends before anything else (and gets a reply to):
    /// the WebSocket upgrade; nothing for the other dialects.
    func upgradeRequest(port: Int) -> [UInt8]? {
        self == .observatoryWebSocket ? WebSocketFrames.upgradeRequest(port: port) : nil
    }

    /// The frame starting at `start` in `bytes[..<end]`, or nil while it is incomplete.
    ///
    /// - Throws: when the bytes cannot be a frame of this protocol.
    func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws -> Scanned? {
        switch self {
        case .observatory: try JSONLineFrames.scan(bytes, from: start, to: end)
        case .observatoryWebSocket: try WebSocketFrames.scan(bytes, from: start, to: end)
        case .redis: try RESPFrames.scan(bytes, from: start, to: end)
        case .etcdGateway: try EtcdGatewayFrames.scan(bytes, from: start, to: end)
        }
    }

    /// The server's name in the tables.
    var serverName: String {
        switch self {
        case .observatory: "observatoryd"
        case .observatoryWebSocket: "observatoryd-ws"
        case .redis: "redis-server"
        case .etcdGateway: "etcd"
        }
    }
}
