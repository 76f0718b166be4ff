// What the connection's machine asks its shell to do, and the share of a loop turn it answers in.
extension ConnectionMachine {
    /// What the shell does after an input: one action per input, as the
    /// machine decided it. `reason` says why a connection stops reading or
    /// closes, for the debug log.
    enum Action: Equatable {
        /// Nothing to do.
        case none
        /// Write what is queued, at the end of the turn.
        case send(reason: String? = nil)
        /// Queue the `unauthenticated` error that ends a connection without a
        /// `hello`, then write what is queued.
        case rejectUnauthenticated(reason: String)
        /// Ask the session to answer the frames it kept (its output drained, or
        /// its next share of a turn has come).
        case answerBuffered
        /// Write what is queued at the end of the turn, after the connections
        /// answered in full, and have the loop call the connection back, without
        /// new bytes, to answer the frames its share left. (So its replies go
        /// out a few shares at a time, never as one large batch that holds the loop.)
        case sendAndResume
        /// End the session (observations, buffers), shut the sending side and linger.
        case finish(reason: String? = nil)
        /// End the session and close the descriptor at once.
        case finishAndClose(reason: String?)
        /// Close the descriptor.
        case close

        /// Why the connection stops reading or closes, if the action says.
        var reason: String? {
            switch self {
            case .send(let reason), .finish(let reason), .finishAndClose(let reason): reason
            case .rejectUnauthenticated(let reason): reason
            case .none, .answerBuffered, .sendAndResume, .close: nil
            }
        }
    }

    /// How much one connection answers at a time before the other
    /// connections of the loop get theirs: so a client that pipelines many
    /// requests, or requests that take long to answer (a `list` of many keys),
    /// delays another client's single request by one share, not by its whole batch.
    ///
    /// A share ends after `requests` answers, or once answering has taken
    /// `nanoseconds`, whichever comes first; at least one frame is answered per
    /// share. The frames left wait, unread input with them, until the loop has
    /// served the other connections that are ready.
    /// Time is the measure that holds whatever a request costs: a count alone
    /// would let a few expensive requests hold the loop.
    struct TurnShare: Equatable, Sendable {
        /// The most frames answered in one share.
        var requests: Int
        /// How long answering may take before the share ends.
        var nanoseconds: UInt64

        /// The server's share: about a bystander's own round trip on loopback,
        /// so that it keeps at least half its rate beside a pipelining client,
        /// and enough requests that a pipelining client's replies still go out
        /// in few sends.
        static let standard = TurnShare(requests: 64, nanoseconds: 50_000)
        /// No limit: every frame held is answered at once.
        static let unlimited = TurnShare(requests: .max, nanoseconds: .max)
    }
}
