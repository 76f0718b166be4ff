import ObservatoryHTTP

/// observatoryd's line protocol over `GET /ws` (RFC 6455), as the load driver needs
/// it: the upgrade request, requests as masked text frames, and the server's
/// unmasked frames cut by their header and classified like JSON lines.
///
/// Every connection upgrades with the same key, so the stateless scanner can check
/// the server's `Sec-WebSocket-Accept`; and every request is masked with the same
/// key, which RFC 6455 asks to be unpredictable to protect proxies, not servers:
/// the driver must not spend a random number per request.
enum WebSocketFrames {
    /// The `Sec-WebSocket-Key` of every connection of this run.
    private static let key = WebSocketHandshake.makeKey()
    /// The masking key of every request.
    private static let maskingKey: UInt32 = 0x5EED_F00D
    /// A frame of a server never starts with this byte (it would have RSV1 set):
    /// a received `H` starts the upgrade's response.
    private static let responseStart = UInt8(ascii: "H")
    private static let endOfHead = Array("\r\n\r\n".utf8)

    /// The `GET /ws` upgrade request for a server on `127.0.0.1:port`.
    static func upgradeRequest(port: Int) -> [UInt8] {
        let headers: HTTPHeaders = [
            "Host": "127.0.0.1:\(port)", "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": WebSocketHandshake.version,
        ]
        return HTTPRequest(method: "GET", target: "/ws", headers: headers).encoded()
    }

    /// Appends the request as one masked text frame (the line without its LF).
    static func appendRequest(
        op: String, key: String?, value: [UInt8]?, keyMember: String = "key", to output: inout [UInt8]
    ) {
        var line: [UInt8] = []
        JSONLineFrames.appendRequest(op: op, key: key, value: value, keyMember: keyMember, to: &line)
        line.removeLast()
        WebSocketFrameEncoder.append(WebSocketFrame(opcode: .text, maskingKey: maskingKey, payload: line), to: &output)
    }

    /// The upgrade's response (a reply, ok when it accepts the upgrade) or the server
    /// frame starting at `start`, or nil while it is incomplete.
    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws -> WireDialect.Scanned? {
        guard end - start >= 2 else { return nil }
        if bytes[start] == responseStart { return try scanResponse(bytes, from: start, to: end) }
        let (first, second) = (bytes[start], bytes[start + 1])
        guard second & 0x80 == 0 else { throw BenchError("a masked frame from the server") }
        var length = Int(second & 0x7F)
        var payloadStart = start + 2
        if length >= 126 {
            let lengthBytes = length == 126 ? 2 : 8
            guard end - payloadStart >= lengthBytes else { return nil }
            length = 0
            for offset in 0..<lengthBytes { length = length << 8 | Int(bytes[payloadStart + offset]) }
            payloadStart += lengthBytes
        }
        guard length <= JSONLineFrames.longestLine else { throw BenchError("a frame of \(length) bytes") }
        let payloadEnd = payloadStart + length
        guard payloadEnd <= end else { return nil }
        switch first & 0x0F {
        case WebSocketOpcode.text.value:
            let frame = JSONLineFrames.classify(bytes, from: payloadStart, to: payloadEnd)
            return WireDialect.Scanned(frame: frame, end: payloadEnd)
        case WebSocketOpcode.close.value:
            let reason = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadEnd]), as: UTF8.self)
            throw BenchError("the server closed the WebSocket: \(reason)")
        default:
            return WireDialect.Scanned(frame: .other, end: payloadEnd)
        }
    }

    /// The response to the upgrade, once its head is in: `ok` when it is a 101 with
    /// the accept value of `key`.
    private static func scanResponse(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws
        -> WireDialect.Scanned?
    {
        guard let headEnd = ByteScan.find(endOfHead, in: bytes, from: start, to: end) else {
            guard end - start <= HTTPResponseDecoder.defaultMaxHeadBytes else { throw BenchError("an endless head") }
            return nil
        }
        var decoder = HTTPResponseDecoder()
        decoder.requestSent(method: "GET")
        decoder.append(UnsafeRawBufferPointer(rebasing: bytes[start..<(headEnd + endOfHead.count)]))
        guard case .head(let head)? = try decoder.next() else { throw BenchError("an unreadable upgrade response") }
        let accepted = WebSocketHandshake.accepts(head, key: key)
        return WireDialect.Scanned(frame: .reply(ok: accepted), end: headEnd + endOfHead.count)
    }
}
