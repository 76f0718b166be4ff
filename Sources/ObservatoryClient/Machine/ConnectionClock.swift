/// The deadlines of a connection, phase by phase, and the attempts that failed
/// since the last hello: when the client ends a connection that overran, when it
/// pings, and how long it waits before the next attempt.
///
/// Every phase is bounded, so no server can hold the client in one for good:
/// the TCP connect by `connectTimeout`; the hello by `pingTimeout` from the
/// moment the connection opened; the resync by `pingTimeout` of silence (each
/// frame from the server starts it again, so a large resync that keeps coming
/// is not cut short); a synchronized link by the ping rule (silent for
/// `pingInterval`: ping; unanswered for `pingTimeout`: dead).
///
/// A plain value in ``ClientMachine``: times come in, verdicts go out.
struct ConnectionClock {
    /// The phase of a link whose deadline is looked at (the connect has no
    /// link yet: the shell's connect is given the time, see ``connectOverran(at:)``).
    enum Stage {
        case greeting, resyncing, synchronized
    }

    /// What a look at the deadlines found.
    enum Verdict: Equatable {
        /// Nothing is due.
        case fine
        /// The link has been silent for `pingInterval`: ping it (the ping now counts as sent).
        case ping
        /// The phase overran its bound: end the connection for this reason.
        case overran(DisconnectReason)
    }

    /// The numbers the deadlines come from.
    let policy: ConnectionPolicy
    /// When the current phase began; nil before the first connect.
    private(set) var phaseBegan: ContinuousClock.Instant?
    /// When the ping in flight was sent; nil when none is.
    private(set) var pingSentAt: ContinuousClock.Instant?
    /// Attempts that failed or broke since a server last answered hello: the backoff grows with it.
    private(set) var failedAttempts = 0
    /// The owner asked to reconnect at once: the next wait is skipped.
    private(set) var skipsNextWait = false

    /// A phase begins at `now`; no ping is in flight.
    mutating func begin(at now: ContinuousClock.Instant) {
        phaseBegan = now
        pingSentAt = nil
    }

    /// Looks at the deadline of `stage` at `now`, for a link that last received at `lastReceived`.
    mutating func check(_ stage: Stage, at now: ContinuousClock.Instant, lastReceived: ContinuousClock.Instant)
        -> Verdict
    {
        guard let began = phaseBegan else { return .fine }
        switch stage {
        case .greeting:
            return now - began >= policy.pingTimeout ? .overran(.helloTimeout) : .fine
        case .resyncing:
            return now - max(began, lastReceived) >= policy.pingTimeout ? .overran(.resyncTimeout) : .fine
        case .synchronized:
            if let sentAt = pingSentAt {
                return now - sentAt >= policy.pingTimeout ? .overran(.pingTimeout) : .fine
            }
            guard now - max(began, lastReceived) >= policy.pingInterval else { return .fine }
            pingSentAt = now
            return .ping
        }
    }

    /// Whether a connect that failed at `now` failed because its time ran out.
    func connectOverran(at now: ContinuousClock.Instant) -> Bool {
        guard let began = phaseBegan else { return false }
        return now - began >= policy.connectTimeout
    }

    /// The owner asks whether the link is alive: true when a ping is to go now
    /// (none is in flight), which then counts as sent.
    mutating func probe(at now: ContinuousClock.Instant) -> Bool {
        guard pingSentAt == nil else { return false }
        pingSentAt = now
        return true
    }

    /// The ping in flight was answered.
    mutating func pingAnswered() {
        pingSentAt = nil
    }

    /// A server answered hello: the backoff starts over.
    mutating func greeted() {
        failedAttempts = 0
        skipsNextWait = false
    }

    /// The connection failed or broke at `now`: returns when to try the next
    /// attempt (at once when the owner asked for that), and counts the failure.
    mutating func nextAttempt(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        if skipsNextWait {
            skipsNextWait = false
            return now
        }
        let delay = policy.backoff.delay(forAttempt: failedAttempts, random: policy.random)
        failedAttempts += 1
        return now + delay
    }

    /// The owner asked to reconnect now: the backoff starts over, and when
    /// `skippingWait`, the wait about to begin is none.
    mutating func reconnectRequested(skippingWait: Bool) {
        failedAttempts = 0
        if skippingWait { skipsNextWait = true }
    }
}
