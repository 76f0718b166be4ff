import Testing

@testable import ObservatoryServer

@Suite struct SessionReservationTests {
    @Test func aNumberWellInsideTheRecordedReservationNeedsNoRecord() {
        var reservation = SessionReservation(recorded: 100, block: 100)
        #expect(reservation.handingOut(10) == nil)
        #expect(reservation.handingOut(50) == nil)
    }

    @Test func halfABlockBeforeTheEndOneThreadRenewsAhead() {
        var reservation = SessionReservation(recorded: 100, block: 100)
        #expect(reservation.handingOut(51) == 200)
        // Covered already, and a renewal is under way: nobody else records.
        #expect(reservation.handingOut(52) == nil)
        reservation.recorded(through: 200, written: true)
        #expect(reservation.recorded == 200)
        #expect(reservation.handingOut(53) == nil)
    }

    @Test func aNumberPastTheRecordedReservationIsRecordedFirstEvenDuringARenewal() {
        var reservation = SessionReservation(recorded: 100, block: 100)
        _ = reservation.handingOut(60)
        #expect(reservation.handingOut(101) == 201)
        #expect(reservation.handingOut(150) == 250)
    }

    @Test func recordsFinishingOutOfOrderKeepTheHighestReservation() {
        var reservation = SessionReservation(recorded: 100, block: 100)
        reservation.recorded(through: 300, written: true)
        reservation.recorded(through: 200, written: true)
        #expect(reservation.recorded == 300)
    }

    @Test func aFailedRecordLeavesTheReservationAndLetsTheNextNumberTryAgain() {
        var reservation = SessionReservation(recorded: 100, block: 100)
        #expect(reservation.handingOut(60) == 200)
        reservation.recorded(through: 200, written: false)
        #expect(reservation.recorded == 100)
        #expect(reservation.handingOut(61) == 200)
    }
}
