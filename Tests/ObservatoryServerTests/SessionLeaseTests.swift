import Testing

@testable import ObservatoryServer

@Suite struct SessionLeaseTests {
    @Test func aNumberWellInsideTheRecordedLeaseNeedsNoRecord() {
        var lease = SessionLease(recorded: 100, block: 100)
        #expect(lease.handingOut(10) == nil)
        #expect(lease.handingOut(50) == nil)
    }

    @Test func halfABlockBeforeTheEndOneThreadRenewsAhead() {
        var lease = SessionLease(recorded: 100, block: 100)
        #expect(lease.handingOut(51) == 200)
        // Covered already, and a renewal is under way: nobody else records.
        #expect(lease.handingOut(52) == nil)
        lease.recorded(through: 200, written: true)
        #expect(lease.recorded == 200)
        #expect(lease.handingOut(53) == nil)
    }

    @Test func aNumberPastTheRecordedLeaseIsRecordedFirstEvenDuringARenewal() {
        var lease = SessionLease(recorded: 100, block: 100)
        _ = lease.handingOut(60)
        #expect(lease.handingOut(101) == 201)
        #expect(lease.handingOut(150) == 250)
    }

    @Test func recordsFinishingOutOfOrderKeepTheHighestLease() {
        var lease = SessionLease(recorded: 100, block: 100)
        lease.recorded(through: 300, written: true)
        lease.recorded(through: 200, written: true)
        #expect(lease.recorded == 300)
    }

    @Test func aFailedRecordLeavesTheLeaseAndLetsTheNextNumberTryAgain() {
        var lease = SessionLease(recorded: 100, block: 100)
        #expect(lease.handingOut(60) == 200)
        lease.recorded(through: 200, written: false)
        #expect(lease.recorded == 100)
        #expect(lease.handingOut(61) == 200)
    }
}
