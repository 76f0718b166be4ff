/// Why a frame could not be decoded into a ``Request``, with the id to echo.
///
/// The server answers it with ``reply`` and, apart from `frame_too_large`, keeps
/// the connection open.
public struct RequestRejection: Error, Sendable, Hashable {
    /// The id to echo: the request's id when it was a string or an integer, else `nil` (`"id":null`).
    public var id: RequestID?
    /// The error to send.
    public var error: WireError

    /// Creates a rejection.
    public init(id: RequestID?, error: WireError) {
        self.id = id
        self.error = error
    }

    /// The failure reply that answers the rejected frame.
    public var reply: Reply {
        .failure(id: id, error)
    }
}
