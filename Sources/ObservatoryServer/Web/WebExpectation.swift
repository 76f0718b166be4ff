/// What one request on an HTTP connection still owes the client, in request
/// order: a response made already, or one made from the session's next reply.
///
/// The session answers every frame it is handed with exactly one reply, in order,
/// so the replies coming out of the connection's queue meet these one by one.
enum WebExpectation: Equatable {
    /// Bytes ready to send; `closes`: the connection ends after them.
    case response([UInt8], closes: Bool)
    /// The `101 Switching Protocols`: after it, output is WebSocket messages.
    case upgrade([UInt8])
    /// A `hello` the web face sent for a token or a name: its reply is dropped
    /// when it succeeds, and answered with its error when it fails; without the
    /// error's body (`omitsBody`) when the request was `HEAD`.
    case hello(omitsBody: Bool)
    /// A REST request: its reply becomes the response, without its body
    /// (`omitsBody`) when the request was `HEAD`.
    case rest(keepAlive: Bool, omitsBody: Bool)
    /// `GET /events`: its `observe` reply starts the stream; `resuming` when the
    /// client sent `Last-Event-ID`, `chunked` for an HTTP/1.1 client.
    case eventStream(resuming: Bool, chunked: Bool)

    /// Whether the session's next reply answers it.
    var awaitsReply: Bool {
        switch self {
        case .response, .upgrade: false
        case .hello, .rest, .eventStream: true
        }
    }
}
