import Dispatch
import Observatory
import Testing

@Suite struct LockedTests {
    @Test func withLockReadsAndChangesTheValue() {
        let numbers = Locked<[Int]>([1])
        let count = numbers.withLock { numbers in
            numbers.append(2)
            return numbers.count
        }
        #expect(count == 2)
        #expect(numbers.value == [1, 2])
    }

    @Test func changesFromManyThreadsAreNeverLost() {
        let total = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { total.withLock { $0 += 1 } }
        }
        #expect(total.value == 8_000)
    }

    @Test func errorsThrownInsideLeaveTheLockUsable() {
        struct Refusal: Error, Equatable {}
        let value = Locked(1)
        #expect(throws: Refusal()) {
            try value.withLock { (number: inout Int) throws(Refusal) in
                number = 2
                throw Refusal()
            }
        }
        #expect(value.withLock { $0 } == 2)
    }
}
