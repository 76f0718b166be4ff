import Dispatch
import Testing

@testable import Observatory

/// A change of one entry of a store, the keyed messenger's use case.
private struct Change: Equatable {
    let key: String
    let value: Int
}

@Suite struct KeyedMessengerTests {
    private func makeChanges() -> KeyedMessenger<String, Change> {
        KeyedMessenger { $0.key }
    }

    @Test func observerOfOneKeyReceivesOnlyThatKeysMessagesInOrder() {
        let changes = makeChanges()
        let observer = TestObserver()
        var received: [Change] = []
        observer.observe(changes, key: "A") { received.append($0) }

        changes.send(Change(key: "A", value: 1))
        changes.send(Change(key: "B", value: 2))
        changes.send(Change(key: "A", value: 3))
        changes.send(Change(key: "C", value: 4))

        #expect(received == [Change(key: "A", value: 1), Change(key: "A", value: 3)])
    }

    @Test func observerOfAllKeysReceivesEveryMessageInOrder() {
        let changes = makeChanges()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(changes) { received.append($0.value) }

        for (index, key) in ["A", "B", "A", "C"].enumerated() {
            changes.send(Change(key: key, value: index))
        }

        #expect(received == [0, 1, 2, 3])
    }

    @Test func observersOfDifferentKeysGetTheirOwnMessages() {
        let changes = makeChanges()
        let first = TestObserver()
        let second = TestObserver()
        var toFirst: [Int] = []
        var toSecond: [Int] = []
        first.observe(changes, key: "A") { toFirst.append($0.value) }
        second.observe(changes, key: "B") { toSecond.append($0.value) }
        first.observe(changes, key: "B") { toFirst.append($0.value * 100) }

        changes.send(Change(key: "A", value: 1))
        changes.send(Change(key: "B", value: 2))

        #expect(toFirst == [1, 200])
        #expect(toSecond == [2])
    }

    @Test func keyedObservationReceivesTheAuthor() {
        let changes = makeChanges()
        let author = Token()
        let observer = TestObserver()
        var authors: [AnyAuthor] = []
        observer.observe(changes, key: "A") { _, author in authors.append(author) }

        changes.send(Change(key: "A", value: 1), from: author)
        changes.send(Change(key: "A", value: 2))

        #expect(authors.count == 2)
        #expect(isSameObject(authors.first, author))
        #expect(isSameObject(authors.last, changes))
    }

    @Test func stopObservingAKeyEndsOnlyThatKey() {
        let changes = makeChanges()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(changes, key: "A") { received.append($0.key) }
        observer.observe(changes, key: "B") { received.append($0.key) }
        #expect(observer.isObserving(changes, key: "A"))

        observer.stopObserving(changes, key: "A")
        changes.send(Change(key: "A", value: 1))
        changes.send(Change(key: "B", value: 2))

        #expect(received == ["B"])
        #expect(!observer.isObserving(changes, key: "A"))
        #expect(observer.isObserving(changes, key: "B"))
    }

    @Test func keysMessengerIsReleasedWhenNobodyObservesIt() {
        let changes = makeChanges()
        let first = TestObserver()
        let second = TestObserver()
        first.observe(changes, key: "A") { _ in }
        second.observe(changes, key: "A") { _ in }
        #expect(changes.keyCount == 1)

        first.stopObserving(changes, key: "A")
        #expect(changes.keyCount == 1)
        second.stopObserving(changes, key: "A")

        #expect(changes.keyCount == 0)
    }

    @Test func deadObserverOfAKeyLeavesNoObservation() {
        let changes = makeChanges()
        var observer: TestObserver? = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        observer?.observe(changes, key: "A") { [captured] _ in _ = captured }
        captured = nil

        observer = nil
        changes.send(Change(key: "A", value: 1))

        #expect(weakCaptured == nil)
        #expect(changes.existingMessenger(for: "A").map(observationCount(of:)) ?? 0 == 0)
    }

    @Test func messagesOfUnobservedKeysCreateNoMessenger() {
        let changes = makeChanges()

        changes.send(Change(key: "nobody", value: 1))

        #expect(changes.keyCount == 0)
    }

    @Test func keyedMessengerDiesWithItsOwner() {
        var changes: KeyedMessenger<String, Change>? = makeChanges()
        weak let weakChanges = changes
        let observer = TestObserver()
        if let changes {
            observer.observe(changes, key: "A") { _ in }
            observer.observe(changes) { _ in }
        }

        changes = nil

        #expect(weakChanges == nil)
    }

    @Test func keysOfDeadObserversDoNotAccumulate() {
        let changes = makeChanges()
        for index in 0..<1_000 {
            let observer = TestObserver()
            observer.observe(changes, key: "key \(index)") { _ in }
        }

        #expect(changes.keyCount <= 64)
    }

    @Test func observingAKeyWhileOthersStopObservingItNeverLosesTheObservation() {
        let changes = KeyedMessenger<String, Int> { _ in "shared" }
        let lost = Counter()

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<20_000 {
                    let observer = TestObserver()
                    observer.observe(changes, key: "shared") { _ in }
                    if !observer.isObserving(changes, key: "shared") { lost.increment() }
                    observer.stopObserving(changes, key: "shared")
                }
            }
        }

        #expect(finished)
        #expect(lost.value == 0)
    }
}
