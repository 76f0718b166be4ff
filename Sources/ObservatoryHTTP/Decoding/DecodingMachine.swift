/// The protocol-specific half of a decoder of a byte stream: it reads one part
/// at a time from a buffer it does not own.
///
/// ``DecoderCore`` owns the buffer and the failure for it, so that the rules every
/// decoder shares (bytes after a failure are dropped, a failure is thrown again on
/// every later call and frees the buffer) are written once.
protocol DecodingMachine: Sendable {
    /// What one step hands out: a request part, a response part, a frame.
    associatedtype Part
    /// What a step throws when the stream has lost its framing.
    associatedtype Failure: Error & Sendable

    /// The next part from `buffer`, or `nil` when more bytes are needed.
    ///
    /// - Parameter inputFinished: whether the peer has closed its side, so that no
    ///   more bytes will come (a message cut short is then a failure).
    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(Failure) -> Part?
}
