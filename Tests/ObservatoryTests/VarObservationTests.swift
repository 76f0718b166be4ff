import Dispatch
import Observation
import Testing

@testable import Observatory

/// `Var` as an `Observable` of Swift's Observation framework.
@Suite struct VarObservationTests {
    /// Tracks `read` once; the returned counter counts the changes it is told of.
    private func track(_ read: () -> Void) -> Counter {
        let changes = Counter()
        withObservationTracking(read) { changes.increment() }
        return changes
    }

    @Test func readingTheValueTracksTheNextLocalSet() {
        let number = Var(1)
        let changes = track { _ = number.value }

        number.value = 2

        #expect(changes.value == 1)
        #expect(number.value == 2)
    }

    @Test func setWithAnAuthorIsTrackedToo() {
        let number = Var(1)
        let changes = track { _ = number.value }

        number.set(5, as: Token())

        #expect(changes.value == 1)
    }

    @Test func settingAnEqualValueIsNotAChange() {
        let text = Var("sky")
        let changes = track { _ = text.value }

        text.value = "sky"

        #expect(changes.value == 0)
    }

    @Test func aTrackerHearsOfOneChangeOnly() {
        let number = Var(1)
        let changes = track { _ = number.value }

        number.value = 2
        number.value = 3

        #expect(changes.value == 1)
    }

    @Test func aTrackedSetStillSendsItsUpdateToObservers() {
        let number = Var(1)
        let observer = TestObserver()
        let updates = ConcurrentValues<Update<Int>>()
        observer.observe(number) { updates.record($0) }
        let changes = track { _ = number.value }

        number.value = 2

        #expect(changes.value == 1)
        #expect(updates.values == [Update(1, 2)])
    }

    @Test func theTrackerSeesTheOldValueAndObserversTheNewOne() {
        let number = Var(1)
        let seenByTracker = ConcurrentValues<Int>()
        withObservationTracking {
            _ = number.value
        } onChange: {
            seenByTracker.record(number.value)
        }

        number.value = 2

        #expect(seenByTracker.values == [1])
        #expect(number.value == 2)
    }

    @Test func numberAndStringConveniencesTrackTheValue() {
        let count = Var<Int?>()
        let name = Var("a")
        let countChanges = track { _ = count.int }
        let nameChanges = track { _ = name.string }

        count.int += 1
        name.string += "b"

        #expect(countChanges.value == 1)
        #expect(nameChanges.value == 1)
    }

    @Test func aSetFromAnotherThreadIsTracked() {
        let number = Var(1)
        let changes = track { _ = number.value }

        #expect(finishes(within: 10) { number.value = 2 })

        #expect(changes.value == 1)
    }

    @Test func onlyAPendingTrackingMakesASetTellTheRegistrar() {
        let number = Var(1)
        #expect(!isTracked(number))
        _ = number.value
        #expect(!isTracked(number))

        let changes = track { _ = number.value }
        #expect(isTracked(number))

        number.value = 2
        #expect(changes.value == 1)
        #expect(!isTracked(number))
    }

    @Test func trackingTwoVariablesTellsOfTheFirstChange() {
        let first = Var(1)
        let second = Var("x")
        let changes = track {
            _ = first.value
            _ = second.value
        }

        second.value = "y"
        first.value = 2

        #expect(changes.value == 1)
    }

    private func isTracked<Value>(_ variable: Var<Value>) -> Bool {
        variable.messenger.core.locked { variable.storage.pointee.mayBeTracked() }
    }
}
