import Testing

@testable import ObservatoryServer

/// The rules of `WriteClaimMachine`: one write in flight, who writes the
/// unwritten changes, and who waits for that write.
@Suite struct WriteClaimMachineTests {
    private typealias Machine = WriteClaimMachine<Int, String>

    /// The changes an access claimed, or `nil` when it did not claim.
    private func claimed(_ access: Machine.Access) -> [Int]? {
        if case .write(let changes) = access { return changes }
        return nil
    }

    private func goesOn(_ access: Machine.Access) -> Bool {
        if case .now = access { return true }
        return false
    }

    private func waits(_ access: Machine.Access) -> Bool {
        if case .wait = access { return true }
        return false
    }

    /// A machine with `changes` unwritten and a buffered claim of them in flight.
    private func writing(_ changes: [Int]) -> Machine {
        var machine = Machine()
        for change in changes { machine.buffered(change) }
        _ = machine.access(.endOfTurn)
        return machine
    }

    @Test func theEndOfATurnClaimsEveryUnwrittenChangeInRevisionOrder() {
        var machine = Machine()
        machine.buffered(1)
        machine.buffered(2)
        machine.buffered(3)
        #expect(claimed(machine.access(.endOfTurn)) == [1, 2, 3])
        #expect(machine.inFlight == .buffered)
        #expect(machine.unwritten.isEmpty)
        #expect(!machine.isWritten)
    }

    @Test func whatMayGoOnAtOnceIsWhatAccessLetsGoOnWithoutAClaim() {
        let purposes: [Machine.Purpose] = [.read, .buffer, .exclusive, .endOfTurn]
        var states: [Machine] = [Machine(), writing([1])]
        var withUnwritten = Machine()
        withUnwritten.buffered(1)
        var appending = Machine()
        appending.appendStarting()
        var writingMore = writing([1])
        writingMore.buffered(2)
        states += [withUnwritten, appending, writingMore]
        for state in states {
            for purpose in purposes {
                var machine = state
                #expect(state.allows(purpose) == goesOn(machine.access(purpose)))
            }
        }
    }

    @Test func nothingUnwrittenNeedsNoClaim() {
        var machine = Machine()
        #expect(goesOn(machine.access(.endOfTurn)))
        #expect(goesOn(machine.access(.read)))
        #expect(goesOn(machine.access(.exclusive)))
        #expect(machine.inFlight == nil)
        #expect(machine.isIdle)
    }

    @Test func onlyOneWriteIsInFlightAndATurnEndingMeanwhileLeavesItsChangesToTheClaimant() {
        var machine = writing([1])
        machine.buffered(2)
        #expect(goesOn(machine.access(.endOfTurn)))
        #expect(machine.unwritten == [2])
        // The claimant is told to look again, and claims them once it announced its own.
        #expect(machine.written().hasUnwritten)
        #expect(machine.inFlight == nil)
        #expect(claimed(machine.access(.endOfTurn)) == [2])
        #expect(!machine.written().hasUnwritten)
        #expect(machine.isIdle)
    }

    @Test func sessionsGoOnBufferingWhileABufferedClaimIsInFlight() {
        var machine = writing([1])
        #expect(goesOn(machine.access(.buffer)))
        machine.buffered(2)
        #expect(machine.unwritten == [2])
    }

    @Test func aReaderWaitsForABufferedClaimAndIsWokenWhenItEnds() {
        var machine = writing([1])
        #expect(waits(machine.access(.read)))
        machine.wait("reader")
        #expect(machine.written().wake == ["reader"])
        #expect(goesOn(machine.access(.read)))
    }

    @Test func aClaimEndsBeforeItsChangesAreAnnouncedSoAHandlerMayReadTheStore() {
        var machine = writing([1])
        machine.buffered(2)
        #expect(waits(machine.access(.read)))
        machine.wait("reader")
        let finish = machine.written()
        #expect(finish.wake == ["reader"])
        #expect(machine.inFlight == nil)
        // A handler run by the claimant's deliveries claims what came meanwhile itself.
        #expect(claimed(machine.access(.read)) == [2])
    }

    @Test func aReaderWithNothingInFlightClaimsTheUnwrittenChangesItself() {
        var machine = Machine()
        machine.buffered(1)
        #expect(claimed(machine.access(.read)) == [1])
        #expect(!machine.written().hasUnwritten)
        #expect(goesOn(machine.access(.read)))
    }

    @Test func anAppendIsClaimedOnlyOnAWrittenStateWithNoWriteInFlight() {
        var machine = Machine()
        machine.buffered(1)
        #expect(claimed(machine.access(.exclusive)) == [1])
        #expect(waits(machine.access(.exclusive)))
        machine.wait("append")
        #expect(machine.written().wake == ["append"])
        #expect(goesOn(machine.access(.exclusive)))
        machine.appendStarting()
        #expect(machine.inFlight == .append)
    }

    @Test func whileAnAppendIsInFlightChangesWaitAndReadsGoOn() {
        var machine = Machine()
        machine.appendStarting()
        #expect(waits(machine.access(.buffer)))
        machine.wait("session")
        #expect(waits(machine.access(.exclusive)))
        machine.wait("expiry")
        #expect(goesOn(machine.access(.read)))
        #expect(goesOn(machine.access(.endOfTurn)))
        #expect(machine.isWritten)
        #expect(machine.appendFinished() == ["session", "expiry"])
        #expect(machine.isIdle)
        #expect(goesOn(machine.access(.buffer)))
    }

    @Test func aFailedWriteEndsTheClaimAndTakesBackWhatWasAppliedMeanwhile() {
        var machine = writing([1, 2])
        machine.buffered(3)
        machine.buffered(4)
        #expect(waits(machine.access(.read)))
        machine.wait("reader")
        let finish = machine.writeFailed()
        #expect(finish.takenBack == [3, 4])
        #expect(!finish.hasUnwritten)
        #expect(finish.wake == ["reader"])
        #expect(machine.isIdle)
    }
}
