import Testing

@testable import ObservatoryClient

/// Every phase of a connection is bounded: the connect, the hello, the resync, a synchronized link.
extension ClientMachineTests {
    /// Connect 1 s, ping after 2 s of silence, replies within 3 s, a fixed backoff of 100 ms.
    static var timing: ConnectionPolicy {
        var policy = ConnectionPolicy()
        policy.connectTimeout = .seconds(1)
        policy.pingInterval = .seconds(2)
        policy.pingTimeout = .seconds(3)
        policy.backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(100), jitter: 0)
        return policy
    }

    /// A machine with ``timing`` whose link is open at ``start``, saying hello.
    func greeting(endpointCount: Int = 1) -> (Machine, StandInLink) {
        var machine = Machine(endpointCount: endpointCount, policy: Self.timing)
        _ = machine.next(at: Self.start)
        let link = StandInLink()
        _ = machine.open(link)
        return (machine, link)
    }

    @Test func theFirstStepConnectsToTheFirstServerWithinTheConnectTimeout() {
        var machine = Machine(endpointCount: 2, policy: Self.timing)
        #expect(machine.next(at: Self.start) == .connect(endpoint: 0, timeout: .seconds(1)))
    }

    @Test func aConnectThatFailsAtItsDeadlineTimedOutAndBacksOff() {
        var machine = Machine(policy: Self.timing)
        _ = machine.next(at: Self.start)
        machine.connectFailed(.connectionFailed("connect to a:1 failed: timed out"), at: Self.at(1_000))
        #expect(machine.next(at: Self.at(1_000)) == .backOff(.connectTimeout, until: Self.at(1_100)))
    }

    @Test func aConnectRefusedBeforeItsDeadlineKeepsItsReason() {
        var machine = Machine(policy: Self.timing)
        _ = machine.next(at: Self.start)
        machine.connectFailed(.connectionFailed("refused"), at: Self.at(10))
        #expect(machine.next(at: Self.at(10)) == .backOff(.connectionFailed("refused"), until: Self.at(110)))
    }

    @Test func aHelloWithoutReplyWithinThePingTimeoutEndsTheLink() {
        var (machine, link) = greeting()
        #expect(machine.check(link, at: Self.at(2_999)) == .none)
        #expect(machine.check(link, at: Self.at(3_000)) == .end(link, .helloTimeout))
    }

    @Test func framesWithoutAHelloReplyDoNotExtendTheHello() {
        var (machine, link) = greeting()
        link.received.withLock { $0 = Self.at(2_900) }
        #expect(machine.check(link, at: Self.at(3_000)) == .end(link, .helloTimeout))
    }

    @Test func aResyncSilentForThePingTimeoutEndsTheLink() {
        var (machine, link) = greeting()
        _ = machine.greet(link, at: Self.at(1_000))
        _ = machine.resyncBegan()
        #expect(machine.check(link, at: Self.at(3_999)) == .none)
        #expect(machine.check(link, at: Self.at(4_000)) == .end(link, .resyncTimeout))
    }

    @Test func aResyncThatKeepsReceivingIsNotCutShort() {
        var (machine, link) = greeting()
        _ = machine.greet(link, at: Self.at(1_000))
        _ = machine.resyncBegan()
        link.received.withLock { $0 = Self.at(3_500) }
        #expect(machine.check(link, at: Self.at(6_499)) == .none)
        #expect(machine.check(link, at: Self.at(6_500)) == .end(link, .resyncTimeout))
    }

    @Test func aSilentSynchronizedLinkIsPingedAndEndedWhenThePingStaysUnanswered() {
        var (machine, link) = greeting()
        _ = machine.greet(link)
        _ = machine.resyncBegan()
        _ = machine.resyncEnded(on: link, at: Self.start)
        #expect(machine.check(link, at: Self.at(1_999)) == .none)
        #expect(machine.check(link, at: Self.at(2_000)) == .ping(link))
        #expect(machine.check(link, at: Self.at(4_999)) == .none, "one ping at a time")
        #expect(machine.check(link, at: Self.at(5_000)) == .end(link, .pingTimeout))
    }

    @Test func anAnsweredPingKeepsTheLinkAndTheNextSilenceIsPingedAgain() {
        var (machine, link) = greeting()
        _ = machine.greet(link)
        _ = machine.resyncEnded(on: link, at: Self.start)
        #expect(machine.check(link, at: Self.at(2_000)) == .ping(link))
        link.received.withLock { $0 = Self.at(2_100) }
        machine.pingAnswered(revision: 1, generation: machine.generation ?? 0)
        #expect(machine.check(link, at: Self.at(4_099)) == .none)
        #expect(machine.check(link, at: Self.at(4_100)) == .ping(link))
    }

    @Test func theDeadlinesOfAnOldLinkAreNotLookedAt() {
        var (machine, link) = greeting()
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.check(link, at: Self.at(60_000)) == .none)
    }

    @Test func aLinkThatOverranMovesOnToTheBackoffAndTheNextServer() {
        var (machine, link) = greeting(endpointCount: 2)
        #expect(machine.check(link, at: Self.at(3_000)) == .end(link, .helloTimeout))
        _ = machine.linkEnded(link, reason: .helloTimeout)
        #expect(machine.next(at: Self.at(3_010)) == .backOff(.helloTimeout, until: Self.at(3_110)))
        #expect(machine.next(at: Self.at(3_050)) == .wait(until: Self.at(3_110)))
        #expect(machine.next(at: Self.at(3_110)) == .connect(endpoint: 1, timeout: .seconds(1)))
    }
}
