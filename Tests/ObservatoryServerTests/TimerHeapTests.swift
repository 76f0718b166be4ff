import Testing

@testable import ObservatoryServer

@Suite struct TimerHeapTests {
    @Test func dueEntriesComeOutEarliestFirstAndLaterOnesStay() {
        var heap = TimerHeap<String>()
        heap.schedule("c", at: 30)
        heap.schedule("a", at: 10)
        heap.schedule("d", at: 40)
        heap.schedule("b", at: 20)
        #expect(heap.nextDeadline == 10)
        #expect(heap.takeDue(at: 25) == ["a", "b"])
        #expect(heap.nextDeadline == 30)
        #expect(heap.takeDue(at: 29).isEmpty)
        #expect(heap.takeDue(at: 100) == ["c", "d"])
        #expect(heap.nextDeadline == nil)
    }

    @Test func equalDeadlinesFireInTheOrderTheyWereScheduled() {
        var heap = TimerHeap<Int>()
        for value in 0..<50 { heap.schedule(value, at: 7) }
        #expect(heap.takeDue(at: 7) == Array(0..<50))
    }

    @Test func manyRandomDeadlinesComeOutSorted() {
        var heap = TimerHeap<UInt64>()
        var generator = SystemRandomNumberGenerator()
        let deadlines = (0..<1_000).map { _ in UInt64.random(in: 0..<10_000, using: &generator) }
        for deadline in deadlines { heap.schedule(deadline, at: deadline) }
        #expect(heap.count == 1_000)
        #expect(heap.takeDue(at: .max) == deadlines.sorted())
    }
}
