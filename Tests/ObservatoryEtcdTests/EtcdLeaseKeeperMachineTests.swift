import Testing

@testable import ObservatoryEtcd

/// The lease keeper's rules, without etcd: which lease is due, retries, losses.
@Suite struct EtcdLeaseKeeperMachineTests {
    private let start = ContinuousClock.now

    private func machine(interval: Duration? = nil) -> EtcdLeaseKeeperMachine {
        EtcdLeaseKeeperMachine(interval: interval, retryInterval: .milliseconds(200), requestTimeout: .seconds(5))
    }

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test func aLeaseIsRenewedEveryThirdOfItsTimeToLive() {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 9), at: start)
        #expect(keeper.next(at: at(1_000)) == .wait(until: at(3_000)))
        #expect(keeper.next(at: at(3_000)) == .renew(id: 1, timeout: .seconds(5)))
        keeper.renewed(1, ttl: 9, sentAt: at(3_000))
        #expect(keeper.next(at: at(3_010)) == .wait(until: at(6_000)))
    }

    @Test func theLeaseDueFirstOfManyIsRenewedFirst() {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 30), at: start)
        keeper.keep(EtcdLease(id: 2, ttl: 6), at: start)
        keeper.keep(EtcdLease(id: 3, ttl: 9), at: start)
        #expect(keeper.next(at: start) == .wait(until: at(2_000)))
        // Both 2 (due at 2 s) and 3 (due at 3 s) are due: 2 first.
        #expect(keeper.next(at: at(3_500)) == .renew(id: 2, timeout: .milliseconds(2_500)))
        keeper.renewed(2, ttl: 6, sentAt: at(3_500))
        #expect(keeper.next(at: at(3_500)) == .renew(id: 3, timeout: .seconds(5)))
        keeper.renewed(3, ttl: 9, sentAt: at(3_500))
        #expect(keeper.next(at: at(3_500)) == .wait(until: at(5_500)))
    }

    @Test func aRenewalWaitsNoLongerThanTheLeaseHasLeft() {
        var keeper = machine(interval: .seconds(1))
        keeper.keep(EtcdLease(id: 1, ttl: 2), at: start)
        #expect(keeper.next(at: at(1_000)) == .renew(id: 1, timeout: .seconds(1)))
    }

    @Test func aFailedRenewalIsRetriedAfterTheRetryInterval() {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 9), at: start)
        keeper.failed(1, .unavailable("no member answered"), at: at(3_000))
        #expect(keeper.next(at: at(3_000)) == .wait(until: at(3_200)))
        #expect(keeper.next(at: at(3_200)) == .renew(id: 1, timeout: .milliseconds(5_000)))
    }

    @Test func aLeaseEtcdNoLongerHasIsLostAtOnceAndOnlyOnce() throws {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 9), at: start)
        let gone = EtcdError(code: .leaseNotFound, message: "the lease 1 does not exist")
        keeper.failed(1, gone, at: at(3_000))
        #expect(keeper.next(at: at(3_000)) == .lose(id: 1, gone))
        #expect(keeper.next(at: at(3_000)) == .wait(until: nil))
        #expect(keeper.leaseIDs.isEmpty)
    }

    @Test func aLeaseNotRenewedWithinItsTimeToLiveIsLostAsUnavailable() throws {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 3), at: start)
        keeper.failed(1, .unavailable("no member answered"), at: at(2_900))
        guard case .lose(1, let error) = keeper.next(at: at(3_000)) else {
            Issue.record("the lease was not lost")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("no member answered"))
    }

    @Test func aReleasedLeaseIsNeitherRenewedNorLost() {
        var keeper = machine()
        keeper.keep(EtcdLease(id: 1, ttl: 3), at: start)
        keeper.release(1)
        #expect(keeper.next(at: at(10_000)) == .wait(until: nil))
        keeper.renewed(1, ttl: 3, sentAt: at(10_000))
        #expect(keeper.leaseIDs.isEmpty)
    }

    @Test func aRenewalExtendsTheLeaseFromWhenItWasSent() {
        var keeper = machine(interval: .seconds(10))
        keeper.keep(EtcdLease(id: 1, ttl: 2), at: start)
        // The interval is longer than the lease: the machine wakes at its expiry.
        #expect(keeper.next(at: start) == .wait(until: at(2_000)))
        keeper.renewed(1, ttl: 5, sentAt: at(1_000))
        #expect(keeper.next(at: at(5_900)) == .wait(until: at(6_000)))
    }
}
