import ObservatoryHTTP
import ObservatorySockets

/// One HTTP/1.1 connection to one member: a non-blocking socket and the
/// decoder of the responses that come back on it, every wait bounded by a deadline.
///
/// A value with one owner at a time: the pool hands it to one request, which
/// gives it back when its response ended cleanly, or closes it.
struct EtcdConnection: Sendable {
    /// Why an exchange failed, with what the caller needs to decide on a retry.
    struct Failure: Error, Sendable {
        /// What went wrong, for the error message.
        let reason: String
        /// Whether any byte of the request had left, so that the member may have it.
        let requestSent: Bool
    }

    /// A complete response.
    struct Response: Sendable {
        /// The HTTP status code.
        let status: Int
        /// The whole body.
        let body: [UInt8]
    }

    /// The member this connection goes to.
    let endpoint: EtcdEndpoint
    /// The endpoint's position in the client's list.
    let endpointIndex: Int
    /// The socket.
    let socket: StreamSocket
    /// Whether the connection served a request before (a pooled one, which the
    /// member may have closed while it sat idle).
    private(set) var isReused = false
    private var decoder = HTTPResponseDecoder()
    private var peerClosed = false
    /// What arrived so far of the response being read.
    private var partial = PartialResponse()

    /// The parts of a response read so far.
    private struct PartialResponse: Sendable {
        var status = 0
        var keepAlive = false
        var body: [UInt8] = []
    }

    /// Connects to `endpoint`, waiting at most until `deadline`.
    static func open(to endpoint: EtcdEndpoint, index: Int, until deadline: ContinuousClock.Instant) throws(Failure)
        -> EtcdConnection
    {
        let milliseconds = Self.milliseconds(until: deadline)
        guard milliseconds > 0 else { throw Failure(reason: "no time left to connect", requestSent: false) }
        do {
            let socket = try StreamSocket.connect(
                host: endpoint.host, port: endpoint.port, timeoutMilliseconds: milliseconds)
            return EtcdConnection(endpoint: endpoint, endpointIndex: index, socket: socket)
        } catch {
            throw Failure(reason: error.description, requestSent: false)
        }
    }

    private init(endpoint: EtcdEndpoint, endpointIndex: Int, socket: StreamSocket) {
        self.endpoint = endpoint
        self.endpointIndex = endpointIndex
        self.socket = socket
    }

    /// The request for `path` with a JSON `body`, as bytes.
    static func request(path: String, body: [UInt8], endpoint: EtcdEndpoint) -> [UInt8] {
        var request = HTTPRequest(method: "POST", target: path, body: body)
        request.headers.add(name: "Host", value: endpoint.hostHeader)
        request.headers.add(name: "Content-Type", value: "application/json")
        return request.encoded()
    }

    /// Whether the member closed the connection (or it failed) while it sat in the pool.
    var isStale: Bool {
        peerClosed || socket.hasPeerHungUp()
    }

    /// Sends `request` and reads its whole response, all before `deadline`.
    ///
    /// - Returns: the response, and whether the connection can serve another request.
    mutating func exchange(_ request: [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) -> (
        Response, reusable: Bool
    ) {
        try send(request, until: deadline)
        while true {
            if let answer = try takeResponse() { return answer }
            let milliseconds = Self.milliseconds(until: deadline)
            guard milliseconds > 0, socket.waitReadable(timeoutMilliseconds: milliseconds) else {
                throw Failure(reason: "no answer within the request timeout", requestSent: true)
            }
            try receive()
        }
    }

    /// Reads what has arrived (the socket was readable) and returns the
    /// response once it is complete, without waiting: for an exchange carried
    /// out by a loop over many connections (`EtcdExchangeLoop`).
    ///
    /// - Returns: the response and whether the connection can serve another
    ///   request, or nil while it is incomplete.
    mutating func readAvailable() throws(Failure) -> (Response, reusable: Bool)? {
        if let answer = try takeResponse() { return answer }
        try receive()
        return try takeResponse()
    }

    /// The response, when the decoder holds all of it; what it holds of it otherwise goes into `partial`.
    private mutating func takeResponse() throws(Failure) -> (Response, reusable: Bool)? {
        while true {
            let part: HTTPResponsePart?
            do {
                part = try decoder.next()
            } catch {
                throw Failure(reason: "the answer is not valid HTTP: \(error)", requestSent: true)
            }
            guard let part else {
                if peerClosed { throw Failure(reason: "the member closed the connection", requestSent: true) }
                return nil
            }
            switch part {
            case .head(let head):
                // A 1xx interim head is followed by the final one; the last head counts.
                partial.status = head.status.code
                partial.keepAlive = head.keepAlive
            case .body(let bytes):
                partial.body += bytes
            case .end:
                if (100..<200).contains(partial.status) { continue }
                isReused = true
                defer { partial = PartialResponse() }
                return (Response(status: partial.status, body: partial.body), partial.keepAlive && !peerClosed)
            }
        }
    }

    /// Sends a request's bytes, waiting at most until `deadline`.
    mutating func send(_ request: [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) {
        decoder.requestSent(method: "POST")
        do {
            try socket.sendAll(request, timeoutMilliseconds: max(Self.milliseconds(until: deadline), 1))
        } catch {
            // A partial send may have reached the member; an error at once after
            // reuse usually means it closed the idle connection first.
            throw Failure(reason: error.description, requestSent: true)
        }
    }

    /// The next part of the response being read (a stream's), or nil when `deadline` passed first.
    mutating func nextPart(until deadline: ContinuousClock.Instant) throws(Failure) -> HTTPResponsePart? {
        while true {
            do {
                if let part = try decoder.next() { return part }
            } catch {
                throw Failure(reason: "the answer is not valid HTTP: \(error)", requestSent: true)
            }
            if peerClosed {
                throw Failure(reason: "the member closed the connection", requestSent: true)
            }
            let milliseconds = Self.milliseconds(until: deadline)
            guard milliseconds > 0, socket.waitReadable(timeoutMilliseconds: milliseconds) else { return nil }
            try receive()
        }
    }

    /// Reads what has arrived into the decoder; marks the end when the member closed.
    private mutating func receive() throws(Failure) {
        let received = withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 16) { buffer in
            Result { () throws(SocketError) -> StreamSocket.Received in
                let received = try socket.receive(into: buffer, resetIsError: true)
                if case .bytes(let count) = received {
                    decoder.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                }
                return received
            }
        }
        switch received {
        case .success(.closed):
            peerClosed = true
            decoder.finish()
        case .success:
            break
        case .failure(let error):
            throw Failure(reason: error.description, requestSent: true)
        }
    }

    /// Closes the socket.
    func close() {
        socket.close()
    }

    /// Milliseconds from now to `deadline`, clamped to what `poll` takes; 0 when passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let total = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
