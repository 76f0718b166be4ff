/// A piece of a decoded request, in the order they arrive.
public enum HTTPRequestPart: Sendable, Hashable {
    /// The request line and headers.
    case head(HTTPRequestHead)
    /// Body bytes as they arrive; a body may come as many pieces.
    case body([UInt8])
    /// The request is complete; the next part, if any, is a pipelined request's head.
    case end
}
