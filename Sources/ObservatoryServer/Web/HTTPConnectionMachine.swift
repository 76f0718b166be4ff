import ObservatoryHTTP
import ObservatoryWire

/// One HTTP connection of the web face as a pure machine: received bytes in;
/// frames for the connection's `Session` and bytes for the socket out.
///
/// Every operation on keys goes through the session as a line-protocol frame
/// (`SessionLine`), so REST, Server-Sent Events and WebSocket clients get the
/// checks, limits, acknowledgements and events of a TCP client. The machine
/// remembers what each request still owes (`WebExpectation`), and turns the
/// session's replies and events, as they leave the connection's queue, into
/// responses, stream events or WebSocket messages (`produce(from:)`).
///
/// The socket shell (`Connection`) feeds bytes with `receive(_:)`, hands the
/// frames `process(_:)` returns to the session, moves the queue's bytes through
/// `produce(from:)` when `wire` is empty, sends `wire`, and closes once
/// `closesWhenSent` holds and everything is sent.
///
/// Memory: the decoder holds at most one request head and one body (16 KiB and
/// `maxFrameBytes`); at most `maxOutstanding` requests wait for their responses,
/// after which the machine asks not to be read; `wire` holds one queue chunk.
///
/// Its twenty-three stored properties are one connection's web state across its
/// lives (HTTP exchanges, then possibly a WebSocket or an event stream): the
/// decoder, the responses owed, the mode of the output and each mode's own state;
/// a connection changes mode in place, so they live in one machine.
struct HTTPConnectionMachine {
    /// What `process(_:)` found for the shell to do.
    struct Step: Equatable {
        /// Frames for the session, LF-terminated.
        var sessionBytes: [UInt8] = []
        /// Too many responses are owed: stop reading until the output drains.
        var pausesReading = false
        /// The codes of the errors answered without the session, for `/metrics`.
        var errorCodes: [ErrorCode] = []
    }

    /// What the output is made of now.
    enum OutputMode: Equatable {
        /// HTTP responses, one per request.
        case http
        /// WebSocket text messages, one per reply or event.
        case webSocket
        /// Server-Sent Events of one stream.
        case eventStream(chunked: Bool)
        /// Nothing more: the connection closes once `wire` is sent.
        case finished
    }

    /// How many requests may wait for their responses before reading stops.
    static let maxOutstanding = 16
    /// The WebSocket close code for a session that ended itself (a failed `hello`).
    static let sessionEndedCode = WebSocketCloseCode.policyViolation

    /// The name of the server's history, for the `id:` of stream events.
    let epoch: String
    /// The most bytes a body or WebSocket message may have.
    let maxFrameBytes: Int

    var decoder: HTTPRequestDecoder
    /// The head and body of the request being received.
    var request: (head: HTTPRequestHead, body: [UInt8])?
    /// After an upgrade: the WebSocket, fed everything received.
    var webSocket: WebSocketConnection?
    /// After `GET /events`, the client's bytes are dropped.
    var ignoresInput = false
    /// No further request is decoded (the last one asked to close, or failed).
    var stopsDecoding = false
    var expectations: [WebExpectation] = []
    /// Frames for the session found outside `process` (WebSocket messages).
    var pendingSessionBytes: [UInt8] = []
    /// The request being answered is `HEAD`: its responses go without their bodies.
    var answersHeadRequest = false
    /// The token of the `hello` sent for this connection, once one was sent.
    var helloToken: String??
    var nextRequestID: Int64 = 1
    var outputMode = OutputMode.http
    /// Bytes to send, and how many of them are sent.
    var wire: [UInt8] = []
    var wireOffset = 0
    /// The connection ends once `wire` is sent.
    var closesWhenSent = false
    /// Codes of errors answered without the session since the last `process(_:)`.
    var answeredErrorCodes: [ErrorCode] = []
    /// The closing bytes of a stream or a WebSocket were added.
    var isFinished = false
    /// The connection's queue writes WebSocket text messages itself, which go to
    /// the socket as they are (`takeQueueFramed()`).
    var takesQueueFramed = false
    /// How many bytes of the queue were handed out last; nil when they were `wire`'s.
    var queueBytesHandedOut: Int?
    /// A send took only part of the queue's bytes, which may end inside a message:
    /// the rest goes before any frame of `wire`.
    var isQueueMessageUnfinished = false

    /// A machine for a connection of a server whose history is `epoch`.
    init(epoch: String, maxFrameBytes: Int) {
        self.epoch = epoch
        self.maxFrameBytes = maxFrameBytes
        decoder = HTTPRequestDecoder(maxBodyBytes: maxFrameBytes)
    }

    /// The bytes held for unfinished requests and messages, for the input budget.
    var retainedByteCount: Int {
        decoder.retainedByteCount + (webSocket?.retainedByteCount ?? 0)
    }

    /// The bytes still to send.
    var pendingWire: ArraySlice<UInt8> {
        wire[wireOffset...]
    }

    /// Whether this connection became a WebSocket.
    var isWebSocket: Bool { webSocket != nil }

    /// Whether this connection became an event stream.
    var isEventStream: Bool { ignoresInput }

    // MARK: Input

    /// Takes received bytes.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        if ignoresInput { return }
        if webSocket != nil {
            receiveWebSocket(Array(bytes))
        } else {
            decoder.append(bytes)
        }
    }

    /// Takes received bytes from an array.
    mutating func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Decodes the requests received so far and answers what needs no session;
    /// returns the frames for the session.
    mutating func process(_ context: WebContext) -> Step {
        var step = Step()
        while webSocket == nil && !ignoresInput && !stopsDecoding {
            if expectations.count >= Self.maxOutstanding {
                step.pausesReading = true
                break
            }
            let part: HTTPRequestPart?
            do {
                part = try decoder.next()
            } catch {
                // A fault inside a HEAD request's body is still answered as HEAD.
                answersHeadRequest = request?.head.method == "HEAD"
                reject(error)
                break
            }
            guard let part else { break }
            switch part {
            case .head(let head):
                request = (head, [])
                if head.expectsContinue {
                    expectations.append(.response(HTTPResponseHead.continueBytes, closes: false))
                }
            case .body(let bytes):
                request?.body.append(contentsOf: bytes)
            case .end:
                if let (head, body) = request {
                    request = nil
                    answersHeadRequest = head.method == "HEAD"
                    handle(head, body: body, context)
                    answersHeadRequest = false
                }
            }
        }
        step.sessionBytes = pendingSessionBytes
        pendingSessionBytes = []
        step.errorCodes = answeredErrorCodes
        answeredErrorCodes = []
        return step
    }

    /// The client closed its sending side.
    mutating func inputEnded() {
        if webSocket != nil {
            _ = webSocket?.inputEnded()
        }
        decoder.finish()
    }

    private mutating func receiveWebSocket(_ bytes: [UInt8]) {
        guard var socket = webSocket else { return }
        var actions = socket.receive(bytes)
        var index = 0
        while index < actions.count {
            switch actions[index] {
            case .deliver(.text(let text)):
                pendingSessionBytes.append(contentsOf: SessionLine.message(text))
            case .deliver(.binary):
                actions.append(contentsOf: socket.close(.unsupportedData, reason: "text messages only"))
                closesWhenSent = true
            case .deliver:
                break
            case .send(let bytes):
                appendWire(bytes)
            case .closeConnection:
                closesWhenSent = true
            }
            index += 1
        }
        webSocket = socket
    }

    /// Answers a request that broke HTTP's rules (or the limits) and stops.
    mutating func reject(_ error: HTTPError) {
        let status = error.status ?? .badRequest
        let code = status == .contentTooLarge ? "frame_too_large" : "bad_request"
        answerError(status, code: code, message: error.message, keepAlive: false)
    }

    /// Queues a response made without the session, in request order; without
    /// its body when it answers `HEAD`.
    mutating func respond(_ response: HTTPResponse) {
        let closes = response.headers.listContains("close", for: "Connection")
        if closes { stopsDecoding = true }
        let bytes = answersHeadRequest ? response.encodedForHeadRequest() : response.encoded()
        expectations.append(.response(bytes, closes: closes))
    }
}

extension HTTPConnectionMachine {
    /// Whether the connection has nothing more to read: a request asked to close
    /// or broke the rules, or a WebSocket closed. Streams and WebSockets read on.
    var wantsToClose: Bool {
        closesWhenSent || (stopsDecoding && webSocket == nil && !ignoresInput)
    }
}
