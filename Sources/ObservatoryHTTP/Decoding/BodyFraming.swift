/// Where the body of one message ends, and how far it has been read (RFC 9112 §6.3):
/// the body half that the request and response decoders share.
///
/// Each decoder decides the framing from a head by its own rules (a server refuses
/// what a client tolerates); reading the body by that framing is the same for both.
enum BodyFraming: Sendable {
    /// `remaining` bytes still to come: a `Content-Length`, or 0 for no body.
    case fixedLength(remaining: Int)
    /// A body in the chunked transfer coding, read by its own machine.
    case chunked(ChunkedBodyState)
    /// Everything until the peer closes (a response without a length), with the
    /// bytes read so far counted against `limit`.
    case untilClose(received: Int, limit: Int?)

    /// The framing of a body `length` bytes long, refused before any of it is
    /// read when it is over `limit`.
    static func declaredLength(_ length: Int, limit: Int?) throws(HTTPError) -> BodyFraming {
        if let limit, length > limit { throw .bodyTooLarge(limit: limit) }
        return .fixedLength(remaining: length)
    }

    /// The next piece of the body from `buffer`, or `nil` when more bytes are needed.
    ///
    /// - Parameter inputFinished: whether the peer closed: it ends a body read until
    ///   the close, and makes a body cut short throw `unexpectedEnd`.
    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(HTTPError) -> ChunkedBodyDecoder
        .Part?
    {
        switch self {
        case .fixedLength(let remaining):
            if remaining == 0 { return .end }
            let available = min(remaining, buffer.readableCount)
            guard available > 0 else {
                if inputFinished { throw .unexpectedEnd("before the end of a body of declared length") }
                return nil
            }
            self = .fixedLength(remaining: remaining - available)
            return .data(buffer.read(available))
        case .chunked(var state):
            let part = try state.next(from: &buffer)
            self = .chunked(state)
            if part == nil && inputFinished { throw .unexpectedEnd("inside a chunked body") }
            return part
        case .untilClose(let received, let limit):
            let available = buffer.readableCount
            guard available > 0 else { return inputFinished ? .end : nil }
            if let limit, available > limit - received { throw .bodyTooLarge(limit: limit) }
            self = .untilClose(received: received + available, limit: limit)
            return .data(buffer.read(available))
        }
    }
}
