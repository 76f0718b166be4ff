/// The input buffer and the sticky failure of a decoder of a byte stream, around
/// the machine that decodes it: what the request, response, chunked-body and
/// WebSocket frame decoders share.
///
/// Once a step fails, the stream has lost its framing: the core frees its buffer,
/// drops every byte appended afterwards and throws the same failure on every
/// later call, so that a decoder cannot hand out parts read past a fault.
///
/// ```swift
/// var core = DecoderCore(machine: SomeMachine())
/// core.append(receivedBytes)
/// while let part = try core.next() { handle(part) }
/// ```
struct DecoderCore<Machine: DecodingMachine>: Sendable {
    /// The protocol-specific state: its limits and phase, and what a decoder tells it
    /// between steps (a response decoder, which requests were HEAD).
    var machine: Machine
    private var buffer = InputBuffer()
    private(set) var failure: Machine.Failure?
    /// Whether the peer closed its side (``finish()``).
    private(set) var inputFinished = false

    /// Creates a core with an empty buffer around `machine`.
    init(machine: Machine) {
        self.machine = machine
    }

    /// The bytes held that have not been handed out yet.
    var bufferedByteCount: Int {
        buffer.readableCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    var retainedByteCount: Int {
        buffer.retainedByteCount
    }

    /// Adds received bytes; bytes after a failure are dropped.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// Adds received bytes straight from a read buffer; bytes after a failure are dropped.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// Records that the peer closed its side: no more bytes will come.
    mutating func finish() {
        inputFinished = true
    }

    /// Hands over the bytes not handed out yet, for a caller that takes over the
    /// stream (after a protocol upgrade). The core holds nothing afterwards.
    mutating func takeRemainingBytes() -> [UInt8] {
        buffer.takeRemaining()
    }

    /// The machine's next part, or `nil` when more bytes are needed.
    ///
    /// - Throws: the machine's failure; then the same failure on every later call.
    mutating func next() throws(Machine.Failure) -> Machine.Part? {
        if let failure { throw failure }
        do {
            return try machine.next(from: &buffer, inputFinished: inputFinished)
        } catch {
            failure = error
            buffer.release()
            throw error
        }
    }
}
