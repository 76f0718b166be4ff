import Observation
import Testing

@testable import Observatory

/// Several variables changed as one step: every value is stored before any observer runs.
@Suite struct UpdateGroupTests {
    /// An observer of each of two variables finds the other one's new value already stored.
    @Test func observersOfEitherVariableSeeBothNewValues() {
        let first = Var(1)
        let second = Var("a")
        let observer = FreeObserver()
        let seen = Locked<[String]>([])
        observer.observe(first) { (update: Update<Int>) in
            seen.withLock { $0.append("first \(update.new) sees second \(second.value)") }
        }
        observer.observe(second) { (update: Update<String>) in
            seen.withLock { $0.append("second \(update.new) sees first \(first.value)") }
        }

        let group = UpdateGroup()
        group.set(first, to: 2, as: observer)
        group.set(second, to: "b", as: observer)
        #expect(seen.value.isEmpty, "nothing is delivered before deliver()")
        group.deliver()

        #expect(seen.value == ["first 2 sees second b", "second b sees first 2"])
    }

    /// The Observation framework's onChange of one variable finds the other already changed.
    @Test func aTrackerOfOneVariableSeesTheOtherAlreadyChanged() {
        let first = Var(1)
        let second = Var(10)
        let seenInOnChange = Locked<Int?>(nil)
        withObservationTracking {
            _ = first.value
        } onChange: {
            seenInOnChange.withLock { $0 = second.value }
        }

        let group = UpdateGroup()
        group.set(first, to: 2, as: first)
        group.set(second, to: 20, as: second)
        group.deliver()

        #expect(seenInOnChange.value == 20)
        #expect(first.value == 2)
    }

    @Test func anEqualValueIsNoChangeAndUpdatesKeepTheirAuthors() {
        let number = Var(1)
        let author = FreeObserver()
        let updates = Locked<[(Int, Bool)]>([])
        author.observe(number) { (update: Update<Int>, from: AnyAuthor) in
            updates.withLock { $0.append((update.new, from === author)) }
        }

        let group = UpdateGroup()
        group.set(number, to: 1, as: author)
        #expect(group.isEmpty)
        group.set(number, to: 3, as: author)
        group.deliver()

        #expect(updates.value.map(\.0) == [3])
        #expect(updates.value.map(\.1) == [true])
    }

    @Test func aSendDuringTheHoldIsDeliveredAfterTheHeldUpdate() {
        let number = Var(1)
        let observer = FreeObserver()
        let seen = Locked<[Int]>([])
        observer.observe(number) { (update: Update<Int>) in seen.withLock { $0.append(update.new) } }

        let group = UpdateGroup()
        group.set(number, to: 2, as: observer)
        number.value = 3
        #expect(seen.value.isEmpty)
        group.deliver()

        #expect(seen.value == [2, 3])
    }
}
