import Testing

@testable import ObservatoryClient

/// How the machine counts failed attempts, and what `reconnectNow` does in each phase.
extension ClientMachineTests {
    /// A doubling backoff from 100 ms, without jitter.
    static var doubling: ConnectionPolicy {
        var policy = timing
        policy.backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(10), jitter: 0)
        return policy
    }

    /// Fails `count` connects in a row, each at its moment; returns the instant the next wait ends.
    func failConnects(_ count: Int, of machine: inout Machine) -> ContinuousClock.Instant {
        var now = Self.start
        for _ in 0..<count {
            if case .wait(let until) = machine.next(at: now) { now = until }
            _ = machine.next(at: now)
            machine.connectFailed(.connectionFailed("refused"), at: now)
            if case .backOff(_, let until) = machine.next(at: now) { now = until }
        }
        return now
    }

    @Test func theBackoffGrowsWithEveryFailedAttemptAndStartsOverAfterAHello() {
        var machine = Machine(policy: Self.doubling)
        _ = machine.next(at: Self.start)
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.next(at: Self.start) == .backOff(.connectionFailed("refused"), until: Self.at(100)))
        _ = machine.next(at: Self.at(100))
        machine.connectFailed(.connectionFailed("refused"), at: Self.at(100))
        #expect(machine.next(at: Self.at(100)) == .backOff(.connectionFailed("refused"), until: Self.at(300)))
        _ = machine.next(at: Self.at(300))
        let link = StandInLink()
        _ = machine.open(link, at: Self.at(300))
        _ = machine.greet(link, at: Self.at(310))
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.next(at: Self.at(400)) == .backOff(.closedByServer, until: Self.at(500)))
    }

    @Test func withoutReconnectsEveryServerIsTriedOnceAndThenTheClientStops() {
        var policy = Self.timing
        policy.reconnects = false
        var machine = Machine(endpointCount: 2, policy: policy)
        #expect(machine.next(at: Self.start) == .connect(endpoint: 0, timeout: .seconds(1)))
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.next(at: Self.start) == .connect(endpoint: 1, timeout: .seconds(1)))
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.next(at: Self.start) == .stop(.connectionFailed("refused")))
    }

    @Test func aClosedClientStops() {
        var machine = Machine(policy: Self.timing)
        _ = machine.close()
        #expect(machine.next(at: Self.start) == .stop(.closed))
    }

    @Test func reconnectNowEndsAWaitAtOnceAndTheBackoffStartsOver() {
        var machine = Machine(policy: Self.doubling)
        let waitEnds = failConnects(3, of: &machine)
        #expect(waitEnds == Self.at(700), "100 + 200 + 400 ms")
        let now = Self.at(350)
        #expect(machine.reconnectNow(at: now) == .wake)
        #expect(machine.next(at: now) == .connect(endpoint: 0, timeout: .seconds(1)))
        machine.connectFailed(.connectionFailed("refused"), at: now)
        #expect(machine.next(at: now) == .backOff(.connectionFailed("refused"), until: now + .milliseconds(100)))
    }

    @Test func reconnectNowRightAfterAFailureSkipsTheWaitOnce() {
        var machine = Machine(policy: Self.doubling)
        _ = machine.next(at: Self.start)
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.reconnectNow(at: Self.start) == .wake)
        #expect(machine.next(at: Self.start) == .backOff(.connectionFailed("refused"), until: Self.start))
        #expect(machine.next(at: Self.start) == .connect(endpoint: 0, timeout: .seconds(1)))
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.next(at: Self.start) == .backOff(.connectionFailed("refused"), until: Self.at(100)))
    }

    @Test func reconnectNowOnASynchronizedLinkPingsItOnceAndADeadOneEnds() {
        var machine = Machine(policy: Self.timing)
        _ = machine.next(at: Self.start)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.resyncEnded(on: link, at: Self.start)
        #expect(machine.reconnectNow(at: Self.at(10)) == .ping(link))
        #expect(machine.reconnectNow(at: Self.at(20)) == .none, "a ping is already on its way")
        #expect(machine.check(link, at: Self.at(3_010)) == .end(link, .pingTimeout))
    }

    @Test func reconnectNowOnALiveLinkLeavesItAsItIs() {
        var machine = Machine(policy: Self.timing)
        _ = machine.next(at: Self.start)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.resyncEnded(on: link, at: Self.start)
        _ = machine.reconnectNow(at: Self.at(10))
        machine.pingAnswered(revision: 4, generation: machine.generation ?? 0)
        #expect(machine.check(link, at: Self.at(1_000)) == .none)
        #expect(machine.synchronizedLink === link)
    }

    @Test func reconnectNowWhileConnectingOrClosedChangesNothing() {
        var machine = Machine(policy: Self.timing)
        _ = machine.next(at: Self.start)
        #expect(machine.reconnectNow(at: Self.start) == .none)
        #expect(machine.next(at: Self.start) == .none, "still connecting")
        _ = machine.close()
        #expect(machine.reconnectNow(at: Self.start) == .none)
    }
}
