import ObservatoryEpoll

/// The rules of one connection's life, without sockets or clocks: when it is
/// read, when it waits for the socket, when and how it closes.
///
/// The I/O shell (`Connection`) feeds it what happened (bytes answered, a send
/// that filled the socket, a timer, the end of the client's input) with the
/// current time, and carries out the `Action` it returns. So every rule of
/// backpressure, fair turns and closing is a plain unit test.
///
/// Fair turns: a connection answers one `TurnShare` of its frames at a time.
/// When a share is used up it stops reading, and the loop calls it back
/// (`resumed()`) once the other connections that are ready have been served,
/// to answer the next share; it reads again once every frame it holds is answered.
///
/// A connection is `open`, then `closing` (it no longer reads, and sends what is
/// queued), then `lingering` (its session has ended and its sending side is shut;
/// it drops the client's input until the client hangs up, so that closing does not
/// reset the connection and destroy the last bytes in flight), then `closed`.
struct ConnectionMachine: Equatable {
    /// The time limits of a connection, in nanoseconds.
    struct Timing: Equatable, Sendable {
        /// How long a connection that must authenticate may go without a successful `hello`.
        var authentication: UInt64?
        /// How long a client may stay silent; `nil`: forever.
        var idle: UInt64?
        /// How long a closing connection waits for its client to take another byte.
        var closingPatience: UInt64
        /// How long, once shutdown begins, requests are still read and answered
        /// `shutting_down`, and then how long the last bytes may take.
        var shutdownGrace: UInt64
        /// How long a lingering socket waits for the client to hang up.
        var linger: UInt64
    }

    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Reading requests and sending replies and events.
        case open
        /// Not reading; sending what is queued until `deadline`, which moves on
        /// while the client keeps taking bytes (`sentMark` is the count at the last look).
        case closing(deadline: UInt64, sentMark: Int)
        /// The session has ended; the socket waits for the client to hang up until `deadline`.
        case lingering(deadline: UInt64)
        /// The descriptor is closed.
        case closed
    }

    /// What a send left behind.
    struct SendOutcome: Equatable {
        /// Nothing is left to send.
        var isDrained: Bool
        /// The socket took less than offered: wait until it is writable.
        var isSocketFull: Bool
        /// The output overflowed and holds only its `slow_consumer` error.
        var isSlowConsumer: Bool
        /// Bytes sent so far on the connection.
        var sentByteCount: Int
    }

    let timing: Timing
    /// How much the connection answers before the other connections of its loop get a turn.
    let share: TurnShare
    private(set) var phase = Phase.open
    /// The session stopped answering with more than `maxQueuedBytes` queued: not
    /// read until the output drains.
    private(set) var isBacklogged = false
    /// The last answers used up the turn's share: not read until the frames held are answered.
    private(set) var isYielding = false
    /// The server holds too many bytes of unfinished frames, and this connection a large share.
    private(set) var isOverInputBudget = false
    /// The socket is full; the shell watches for it to become writable.
    private(set) var isSocketFull = false
    /// Shutdown has begun.
    private(set) var isShuttingDown = false
    private var lastReceivedAt: UInt64
    private var authenticationDeadline: UInt64?
    private var shutdownClosesAt: UInt64?

    /// A new open connection at `now`, answering `share` per loop turn.
    init(timing: Timing, share: TurnShare = .standard, now: UInt64) {
        self.timing = timing
        self.share = share
        lastReceivedAt = now
        authenticationDeadline = timing.authentication.map { now + $0 }
    }

    /// Whether the shell should read from the socket: while open and not held back,
    /// and while lingering (the client's input is dropped until it hangs up).
    var wantsToRead: Bool {
        switch phase {
        case .open: !isBacklogged && !isOverInputBudget && !isYielding
        case .lingering: true
        case .closing, .closed: false
        }
    }

    /// What the poller should watch the socket for.
    var interest: Poller.Interest {
        var interest: Poller.Interest = []
        if wantsToRead { interest.insert(.readable) }
        if isSocketFull && isSending { interest.insert(.writable) }
        // A connection held back by the input budget must still learn that its client left.
        if phase == .open && isOverInputBudget { interest.insert(.hangUp) }
        return interest
    }

    /// Whether queued bytes may still go out.
    var isSending: Bool {
        switch phase {
        case .open, .closing: true
        case .lingering, .closed: false
        }
    }

    /// When the machine next needs `timerFired`, if ever.
    var nextDeadline: UInt64? {
        switch phase {
        case .open:
            // Without an array: this runs after every answered read.
            var earliest = authenticationDeadline
            if let idle = timing.idle { earliest = min(earliest ?? .max, lastReceivedAt + idle) }
            if let closes = shutdownClosesAt { earliest = min(earliest ?? .max, closes) }
            return earliest
        case .closing(let deadline, _), .lingering(let deadline):
            return deadline
        case .closed:
            return nil
        }
    }

    // MARK: Inputs

    /// The session answered received bytes (or the frames it kept) with `action`;
    /// `usedShare`: it stopped because the answers used up the turn's share.
    mutating func answered(_ action: Session.Action, usedShare: Bool = false, at now: UInt64) -> Action {
        guard phase == .open else { return .none }
        lastReceivedAt = now
        switch action {
        case .keepOpen:
            isBacklogged = false
            isYielding = usedShare
            return usedShare ? .sendAndResume : .send()
        case .backlogged:
            let reason = isBacklogged ? nil : "not read until its queued bytes drain"
            isBacklogged = true
            isYielding = false
            return .send(reason: reason)
        case .close:
            return beginClosing(at: now, reason: "closing after a fatal protocol error")
        }
    }

    /// The loop calls back a connection that used up its share: it answers the
    /// next share of the frames it holds.
    mutating func resumed() -> Action {
        guard phase == .open, isYielding else { return .none }
        isYielding = false
        return .answerBuffered
    }

    /// The client closed its sending side: it still gets every reply queued so far.
    mutating func endOfInput(at now: UInt64) -> Action {
        switch phase {
        case .open:
            return beginClosing(at: now, reason: nil)
        case .lingering:
            return closeNow()
        case .closing, .closed:
            return .none
        }
    }

    /// The client is gone while it was not read (a hang-up while over the input
    /// budget): its session ends, and the socket closes without lingering.
    mutating func hungUp() -> Action {
        endAndClose(reason: "the client left while it was not read")
    }

    /// The socket failed: nothing more can be sent or received.
    mutating func failed(_ reason: String) -> Action {
        endAndClose(reason: reason)
    }

    /// A send ended with `outcome`; the clock (`now`) is read only if that
    /// closes or finishes the connection.
    mutating func sent(_ outcome: SendOutcome, at now: @autoclosure () -> UInt64) -> Action {
        guard isSending else { return .none }
        isSocketFull = outcome.isSocketFull
        var action = Action.none
        if outcome.isSlowConsumer && phase == .open {
            action = beginClosing(at: now(), reason: "closed as a slow consumer")
        }
        guard outcome.isDrained else { return action }
        if case .closing = phase {
            return finishNow(at: now(), reason: action.reason)
        }
        return isBacklogged ? .answerBuffered : action
    }

    /// The input budget says whether this connection must stop reading.
    mutating func inputBudget(pauses: Bool) {
        isOverInputBudget = pauses
    }

    /// Shutdown has begun: the `shutdown` event is queued (by the shell); requests
    /// are still read, and answered `shutting_down`, for half the grace time.
    mutating func shutDown(at now: UInt64) -> Action {
        guard phase == .open, !isShuttingDown else { return .none }
        isShuttingDown = true
        shutdownClosesAt = now + timing.shutdownGrace / 2
        return .send()
    }

    /// A deadline may have passed.
    ///
    /// - Parameters:
    ///   - needsHello: the session still waits for a `hello` with a token.
    ///   - outcome: how far sending has got.
    mutating func timerFired(at now: UInt64, needsHello: Bool, outcome: SendOutcome) -> Action {
        switch phase {
        case .open:
            return openTimerFired(at: now, needsHello: needsHello)
        case .closing(let deadline, let sentMark):
            guard now >= deadline else { return .none }
            // A client that took bytes since the last look gets more time; one that stopped does not.
            if outcome.sentByteCount != sentMark && !outcome.isDrained {
                phase = .closing(deadline: now + closingPatience, sentMark: outcome.sentByteCount)
                return .none
            }
            return finishNow(at: now)
        case .lingering(let deadline):
            return now >= deadline ? closeNow() : .none
        case .closed:
            return .none
        }
    }

    /// The lingering socket's input was dropped; `peerClosed` if the client has hung up.
    mutating func discardedInput(peerClosed: Bool) -> Action {
        guard case .lingering = phase, peerClosed else { return .none }
        return closeNow()
    }

    /// Closes at once, whatever the phase (the server stops).
    mutating func abandon() -> Action {
        endAndClose(reason: nil)
    }

    // MARK: Rules

    private mutating func openTimerFired(at now: UInt64, needsHello: Bool) -> Action {
        if let deadline = authenticationDeadline, now >= deadline {
            authenticationDeadline = nil
            if needsHello {
                let reason = "no successful hello in time"
                _ = beginClosing(at: now, reason: reason)
                return .rejectUnauthenticated(reason: reason)
            }
        }
        if let idle = timing.idle, now >= lastReceivedAt + idle {
            return beginClosing(at: now, reason: "closed after \(idle / 1_000_000) ms without a request")
        }
        if let deadline = shutdownClosesAt, now >= deadline {
            return beginClosing(at: now, reason: nil)
        }
        return .none
    }

    private var closingPatience: UInt64 {
        isShuttingDown ? timing.shutdownGrace : max(timing.shutdownGrace, timing.closingPatience)
    }

    /// Stops reading and sends what is queued; the shell reports the send.
    private mutating func beginClosing(at now: UInt64, reason: String?) -> Action {
        guard phase == .open else { return .none }
        phase = .closing(deadline: now + closingPatience, sentMark: -1)
        isBacklogged = false
        isYielding = false
        return .send(reason: reason)
    }

    /// Ends the session and lingers.
    private mutating func finishNow(at now: UInt64, reason: String? = nil) -> Action {
        phase = .lingering(deadline: now + timing.linger)
        isSocketFull = false
        return .finish(reason: reason)
    }

    /// Ends the session if it has not ended, and closes the descriptor.
    private mutating func endAndClose(reason: String?) -> Action {
        switch phase {
        case .open, .closing:
            phase = .closed
            return .finishAndClose(reason: reason)
        case .lingering:
            return closeNow()
        case .closed:
            return .none
        }
    }

    private mutating func closeNow() -> Action {
        phase = .closed
        return .close
    }
}
