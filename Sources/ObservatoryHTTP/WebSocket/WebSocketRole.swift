/// Which end of a WebSocket connection this is; it decides the masking rules.
public enum WebSocketRole: Sendable, Hashable {
    /// The server: receives masked frames, sends unmasked ones.
    case server
    /// The client: receives unmasked frames, sends masked ones.
    case client
}
