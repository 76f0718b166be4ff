extension ClientMachine {
    /// What the client's shell is to do after an input of the connection's
    /// life: one value, carried out after the lock is released.
    ///
    /// The connection thread asks ``ClientMachine/next(at:)`` whenever it has no
    /// link, and ``ClientMachine/check(_:at:)`` on every turn while it serves one;
    /// the answers say what I/O to do, and the machine has already moved to the
    /// phase that the I/O begins.
    enum Action {
        /// Nothing to do now.
        case none
        /// Announce `connecting` and open a TCP connection to the server at
        /// `endpoint` (an index into the configured servers) within `timeout`.
        case connect(endpoint: Int, timeout: Duration)
        /// Send hello on the link that just opened.
        case sayHello(Link)
        /// Send a ping on the link (it was silent, or the owner asked whether it lives).
        case ping(Link)
        /// End the link for the reason (its phase overran its bound).
        case end(Link, DisconnectReason)
        /// Announce `disconnected(reason)` and wait until the instant before the next attempt.
        case backOff(DisconnectReason, until: ContinuousClock.Instant)
        /// Go on waiting until the instant (or until woken).
        case wait(until: ContinuousClock.Instant)
        /// Announce `disconnected(reason)`, finish every stream and stop: no more attempts.
        case stop(DisconnectReason)
        /// Wake the connection thread: its wait has been cut short.
        case wake
        /// Call the completion of the request a reply answers, with that reply.
        case complete(RequestCompletion)
    }
}

extension ClientMachine.Action: Equatable {
    /// Same action, on the same link (by identity); completions are never equal (closures cannot be compared).
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none), (.wake, .wake): true
        case (.connect(let left, let leftTimeout), .connect(let right, let rightTimeout)):
            left == right && leftTimeout == rightTimeout
        case (.sayHello(let left), .sayHello(let right)), (.ping(let left), .ping(let right)): left === right
        case (.end(let left, let leftReason), .end(let right, let rightReason)):
            left === right && leftReason == rightReason
        case (.backOff(let left, let leftUntil), .backOff(let right, let rightUntil)):
            left == right && leftUntil == rightUntil
        case (.wait(let left), .wait(let right)): left == right
        case (.stop(let left), .stop(let right)): left == right
        default: false
        }
    }
}
