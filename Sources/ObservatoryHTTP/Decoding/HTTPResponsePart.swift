/// A piece of a decoded response, in the order they arrive.
public enum HTTPResponsePart: Sendable, Hashable {
    /// The status line and headers.
    case head(HTTPResponseHead)
    /// Body bytes as they arrive; a body may come as many pieces.
    case body([UInt8])
    /// The response is complete; the next part, if any, is the next response's head.
    case end
}
