import Testing

@testable import ObservatoryServer

/// `ExpiryMachine`'s rules with a fake clock: time in, keys to expire out.
@Suite struct ExpiryMachineTests {
    @Test func aKeyIsDueAtItsDeadlineAndNotBefore() {
        var machine = ExpiryMachine()
        machine.schedule("door", at: 10_000)
        #expect(machine.takeDue(now: 9_999, limit: 10).isEmpty)
        #expect(machine.takeDue(now: 10_000, limit: 10) == ["door"])
        #expect(machine.count == 0)
        #expect(machine.takeDue(now: 20_000, limit: 10).isEmpty)
    }

    @Test func dueKeysComeOutEarliestFirstInSlicesOfTheLimit() {
        var machine = ExpiryMachine()
        machine.schedule("c", at: 3_000)
        machine.schedule("a", at: 1_000)
        machine.schedule("b", at: 2_000)
        #expect(machine.takeDue(now: 5_000, limit: 2) == ["a", "b"])
        #expect(machine.takeDue(now: 5_000, limit: 2) == ["c"])
    }

    @Test func schedulingAgainMovesTheDeadline() {
        var machine = ExpiryMachine()
        machine.schedule("k", at: 1_000)
        machine.schedule("k", at: 5_000)
        #expect(machine.takeDue(now: 4_999, limit: 10).isEmpty)
        #expect(machine.deadline(of: "k") == 5_000)
        #expect(machine.takeDue(now: 5_000, limit: 10) == ["k"])
    }

    @Test func aCancelledKeyNeverComesDue() {
        var machine = ExpiryMachine()
        machine.schedule("k", at: 1_000)
        machine.cancel("k")
        #expect(machine.deadline(of: "k") == nil)
        #expect(machine.takeDue(now: 9_000, limit: 10).isEmpty)
    }

    @Test func tenThousandKeysOfOneSecondComeOutInBoundedSlices() {
        var machine = ExpiryMachine()
        for index in 0..<10_000 {
            machine.schedule("k.\(index)", at: 60_000 + Int64(index % 1_000))
        }
        var slices: [Int] = []
        while true {
            let slice = machine.takeDue(now: 61_000, limit: 500)
            if slice.isEmpty { break }
            slices.append(slice.count)
        }
        #expect(slices == Array(repeating: 500, count: 20))
        #expect(machine.count == 0)
    }

    @Test func restartingOneKeyManyTimesKeepsTheBookkeepingSmall() {
        var machine = ExpiryMachine()
        for step in 0..<10_000 {
            machine.schedule("hot", at: 1_000 + Int64(step))
        }
        #expect(machine.count == 1)
        #expect(machine.heapEntryCount <= 130)
        #expect(machine.takeDue(now: 10_998, limit: 10).isEmpty)
        #expect(machine.takeDue(now: 10_999, limit: 10) == ["hot"])
    }
}
