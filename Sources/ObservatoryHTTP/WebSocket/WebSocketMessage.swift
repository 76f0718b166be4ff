/// What a peer said over a WebSocket: a whole data message or a control frame.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message, its fragments joined, valid UTF-8.
    case text(String)
    /// A binary message, its fragments joined. Observatory's endpoints accept none
    /// and close with 1003, so it is surfaced for the caller to decide.
    case binary([UInt8])
    /// A ping with its payload; it wants a pong with the same payload.
    case ping([UInt8])
    /// A pong with its payload.
    case pong([UInt8])
    /// A close frame's code and reason, or `nil` when it carried none.
    case close(WebSocketClosePayload?)
}
