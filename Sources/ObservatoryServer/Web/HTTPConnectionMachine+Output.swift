import ObservatoryHTTP
import ObservatoryWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output side of the web face's machine: the session's replies and events,
/// as they leave the connection's queue, made into HTTP responses, stream events
/// or WebSocket messages.
extension HTTPConnectionMachine {
    /// Turns bytes taken from the connection's queue (whole LF-terminated frames)
    /// into bytes to send, with the responses that were waiting for them.
    ///
    /// Lines are found with `memchr`, a word at a time: a loop over the bytes took
    /// a third of the server's time in WebSocket fan-out. An open WebSocket that
    /// owes nothing wraps every line alike, without looking at any.
    mutating func produce(from queued: ArraySlice<UInt8>) {
        emitReadyResponses()
        queued.withUnsafeBytes { bytes in
            let wrapsEveryLine = outputMode == .webSocket && expectations.isEmpty && isWebSocketOpen
            if wrapsEveryLine { wire.reserveCapacity(wire.count + bytes.count + bytes.count / 16 + 16) }
            var start = 0
            while let newline = Self.lineFeed(in: bytes, from: start) {
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<newline])
                start = newline + 1
                if wrapsEveryLine {
                    appendWebSocketText(line)
                } else {
                    handleOutgoing(line)
                    emitReadyResponses()
                }
            }
        }
    }

    /// The index of the first LF in `bytes` at or after `start`.
    private static func lineFeed(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Whether this is a WebSocket that neither side has begun to close.
    var isWebSocketOpen: Bool {
        webSocket?.state == .open
    }

    /// The connection is closing with everything queued sent: ends a stream with
    /// its last chunk and a WebSocket with a close frame (1001 when the server
    /// shuts down), once.
    mutating func finish(shuttingDown: Bool) {
        guard !isFinished else { return }
        isFinished = true
        switch outputMode {
        case .eventStream(let chunked):
            if chunked { appendWire(ChunkedBodyEncoder.lastChunk) }
        case .webSocket:
            let code: WebSocketCloseCode = shuttingDown ? .goingAway : Self.sessionEndedCode
            for case .send(let bytes) in webSocket?.close(code) ?? [] { appendWire(bytes) }
        case .http, .finished:
            break
        }
        outputMode = .finished
    }

    /// A comment that keeps proxies from closing an idle stream; false when this is no stream.
    mutating func keepStreamAlive() -> Bool {
        guard case .eventStream(let chunked) = outputMode else { return false }
        appendStreamBytes(ServerSentEvent.comment("keep-alive"), chunked: chunked)
        return true
    }

    private mutating func emitReadyResponses() {
        while let first = expectations.first, !first.awaitsReply {
            expectations.removeFirst()
            switch first {
            case .response(let bytes, let closes):
                guard outputMode == .http else { continue }
                appendWire(bytes)
                if closes { finishHTTP() }
            case .upgrade(let bytes):
                appendWire(bytes)
                outputMode = .webSocket
            case .hello, .rest, .eventStream:
                break
            }
        }
    }

    private mutating func handleOutgoing(_ bytes: UnsafeRawBufferPointer) {
        let line = Array(bytes)[...]
        switch outputMode {
        case .finished:
            return
        case .webSocket:
            if case .hello = expectations.first {
                expectations.removeFirst()
                guard WebResponse.failureCode(of: line) != nil else { return }
                appendWebSocketText(bytes)
                finish(shuttingDown: false)
                closesWhenSent = true
                return
            }
            appendWebSocketText(bytes)
        case .eventStream(let chunked):
            appendStreamBytes(StreamEvent.encode(line: line, epoch: epoch), chunked: chunked)
        case .http:
            // Events on a connection without observations: only `shutdown`, which
            // HTTP says with the connection's close.
            guard let first = expectations.first, first.awaitsReply, !line.starts(with: Array(#"{"event""#.utf8))
            else { return }
            expectations.removeFirst()
            answer(first, with: line)
        }
    }

    private mutating func answer(_ expectation: WebExpectation, with line: ArraySlice<UInt8>) {
        let failure = WebResponse.failureCode(of: line)
        switch expectation {
        case .hello(let omitsBody):
            guard failure != nil else { return }
            emit(WebResponse.rest(replyLine: line, keepAlive: false), omitsBody: omitsBody)
        case .rest(let keepAlive, let omitsBody):
            emit(
                WebResponse.rest(replyLine: line, keepAlive: keepAlive && failure != "frame_too_large"),
                omitsBody: omitsBody)
        case .eventStream(let resuming, let chunked):
            guard failure == nil else {
                emit(WebResponse.rest(replyLine: line, keepAlive: false))
                return
            }
            appendWire(StreamEvent.head(chunked: chunked))
            outputMode = .eventStream(chunked: chunked)
            appendStreamBytes(StreamEvent.start(reply: line, resuming: resuming), chunked: chunked)
        case .response, .upgrade:
            break
        }
    }

    private mutating func emit(_ response: HTTPResponse, omitsBody: Bool = false) {
        appendWire(omitsBody ? response.encodedForHeadRequest() : response.encoded())
        if !response.head.keepAlive { finishHTTP() }
    }

    /// Nothing after this response: the connection closes once it is sent.
    private mutating func finishHTTP() {
        outputMode = .finished
        expectations = []
        stopsDecoding = true
        closesWhenSent = true
    }

    /// Appends one unmasked text frame around `line`, its header written here
    /// rather than through a `WebSocketFrame`: this runs once per event per
    /// observer, and copying the payload into a frame first would double its cost.
    private mutating func appendWebSocketText(_ line: UnsafeRawBufferPointer) {
        guard isWebSocketOpen else { return }
        WebSocketFrameEncoder.appendTextHeader(payloadCount: line.count, to: &wire)
        wire.append(contentsOf: line)
    }

    private mutating func appendStreamBytes(_ bytes: [UInt8], chunked: Bool) {
        guard !bytes.isEmpty else { return }
        if chunked {
            ChunkedBodyEncoder.appendChunk(bytes, to: &wire)
        } else {
            appendWire(bytes)
        }
    }

    /// Appends bytes to send as they are.
    mutating func appendWire(_ bytes: [UInt8]) {
        wire.append(contentsOf: bytes)
    }
}
