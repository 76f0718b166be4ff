import ObservatoryHTTP
import ObservatoryWire

/// A connection the server will not serve (over `limits.maxConnections`, or
/// during shutdown) as a pure machine: it is refused in the dialect its client
/// speaks, then closed.
///
/// The first bytes decide, as for a served connection (`ProtocolSniffer`): an
/// HTTP client gets `503 Service Unavailable` with `Retry-After` and the error
/// as JSON, a line-protocol client the error frame with `id` null. A client that
/// sends nothing within `sniffNanoseconds` (a line client waiting to be spoken
/// to) gets the frame. After the answer the sending side is shut and the client's
/// input is dropped until it hangs up, at most `lingerNanoseconds`: closing with
/// unread bytes would reset the connection and could destroy the answer in flight.
///
/// Memory and time are bounded: the sniffer holds at most one first line (16 KiB),
/// and the machine ends by `sniffNanoseconds + lingerNanoseconds` whatever the client does.
struct ConnectionRefusal {
    /// What the shell does after an input.
    struct Action: Equatable {
        /// Bytes to send (best effort), after which the sending side is shut.
        var answer: [UInt8] = []
        /// Close the socket now.
        var closes = false
    }

    /// How long a refused client has to show its dialect.
    static let sniffNanoseconds: UInt64 = 500_000_000
    /// How long a refused client has to hang up after the answer.
    static let lingerNanoseconds: UInt64 = 1_000_000_000
    /// The seconds `Retry-After` asks an HTTP client to wait.
    static let retryAfterSeconds = 1

    private enum Phase: Equatable {
        case sniffing(deadline: UInt64)
        case answered(deadline: UInt64)
        case closed
    }

    /// Why the connection is refused, as the line protocol says it.
    let error: WireError
    private var sniffer = ProtocolSniffer()
    private var phase: Phase

    /// A refusal for a connection accepted at `now` (monotonic nanoseconds).
    init(error: WireError, now: UInt64) {
        self.error = error
        phase = .sniffing(deadline: now + Self.sniffNanoseconds)
    }

    /// The refusal of a connection over `limit` connections.
    static func overLimit(_ limit: Int, now: UInt64) -> ConnectionRefusal {
        ConnectionRefusal(
            error: WireError(
                code: .limitExceeded,
                message: "the server has its maximum of \(limit) connections (limits.maxConnections)"),
            now: now)
    }

    /// When `timeReached(_:)` is due next, or `nil` once closed.
    var nextDeadline: UInt64? {
        switch phase {
        case .sniffing(let deadline), .answered(let deadline): deadline
        case .closed: nil
        }
    }

    /// The bytes held while the dialect is unknown.
    var bufferedByteCount: Int { sniffer.bufferedByteCount }

    /// Takes received bytes: the answer once they show the dialect.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64) -> Action {
        guard case .sniffing = phase else { return Action() }
        switch sniffer.append(bytes) {
        case .undecided:
            return Action()
        case .http(let first):
            return answer(httpAnswer(toHead: first.starts(with: Array("HEAD ".utf8))), now: now)
        case .lineProtocol:
            return answer(lineAnswer(), now: now)
        }
    }

    /// The client closed its sending side: answered (if not yet) and closed.
    mutating func inputEnded() -> Action {
        let answer: [UInt8]
        if case .sniffing = phase { answer = lineAnswer() } else { answer = [] }
        phase = .closed
        sniffer = ProtocolSniffer()
        return Action(answer: answer, closes: true)
    }

    /// Time passed: a silent client gets the line protocol's answer; a lingering
    /// one is closed.
    mutating func timeReached(_ now: UInt64) -> Action {
        switch phase {
        case .sniffing(let deadline) where now >= deadline:
            return answer(lineAnswer(), now: now)
        case .answered(let deadline) where now >= deadline:
            phase = .closed
            return Action(closes: true)
        default:
            return Action()
        }
    }

    private mutating func answer(_ bytes: [UInt8], now: UInt64) -> Action {
        phase = .answered(deadline: now + Self.lingerNanoseconds)
        sniffer = ProtocolSniffer()
        return Action(answer: bytes)
    }

    private func lineAnswer() -> [UInt8] {
        Reply.failure(id: nil, error).encodedLine()
    }

    /// `503` with the error as the REST routes write errors; `Retry-After` when
    /// the limit, not a shutdown, refused it.
    private func httpAnswer(toHead: Bool) -> [UInt8] {
        var response = WebResponse.error(
            .serviceUnavailable, code: error.code.rawValue, message: error.message, keepAlive: false)
        if error.code == .limitExceeded {
            response.headers.add(name: "Retry-After", value: String(Self.retryAfterSeconds))
        }
        return toHead ? response.encodedForHeadRequest() : response.encoded()
    }
}
