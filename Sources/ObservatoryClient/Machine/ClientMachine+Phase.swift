extension ClientMachine {
    /// Where the connection stands; the link and its generation live here, so
    /// there is no link without a phase that says what it is for.
    enum Phase {
        /// Not started yet.
        case idle
        /// Opening a socket.
        case connecting
        /// The link is open; the client said hello and waits for the answer.
        case greeting(Link, generation: Int)
        /// The server answered hello; the client resumes its observations.
        case resyncing(Link, generation: Int)
        /// Every mirror is in sync: requests may go out on the link.
        case synchronized(Link, generation: Int)
        /// The last link (or connect) ended for `reason`; the next step is not decided yet,
        /// or the client stopped, when it does not reconnect.
        case disconnected(DisconnectReason)
        /// The last link ended for `reason`; the client waits until `until` to connect again.
        case waiting(DisconnectReason, until: ContinuousClock.Instant)
        /// Closed by its owner: nothing more happens.
        case closed
    }

    /// What the client must do once a resync is over.
    struct Ready {
        /// Announce this reset before `connected`.
        var reset: Reset?
        /// Send these mirrors' unsent writes.
        var unsent: [any MirrorEndpoint]
        /// Observe these mirrors, made during the resync.
        var awaiting: [any MirrorEndpoint]
    }
}

/// What the phase says: is there a link, and what may it be used for.
extension ClientMachine {
    /// Whether the owner closed the client.
    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// The current link, whatever it is doing.
    var link: Link? {
        switch phase {
        case .greeting(let link, _), .resyncing(let link, _), .synchronized(let link, _): link
        case .idle, .connecting, .disconnected, .waiting, .closed: nil
        }
    }

    /// The current link, if it is synchronized and has not ended.
    var synchronizedLink: Link? {
        guard case .synchronized(let link, _) = phase, !link.hasEnded else { return nil }
        return link
    }

    /// The link, once every mirror has its snapshot or has resumed.
    var settledLink: Link? {
        registry.isSettled ? synchronizedLink : nil
    }

    /// The generation of the current link, whatever it is doing.
    var generation: Int? {
        switch phase {
        case .greeting(_, let generation), .resyncing(_, let generation), .synchronized(_, let generation):
            generation
        case .idle, .connecting, .disconnected, .waiting, .closed: nil
        }
    }

    /// The link for a request, or why there is none.
    func linkForRequest() throws(ClientError) -> Link {
        if isClosed { throw .closed }
        guard let link = synchronizedLink else { throw .notConnected(announced) }
        return link
    }
}
