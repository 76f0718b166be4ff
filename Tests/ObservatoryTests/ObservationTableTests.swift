import Foundation
import Testing

@testable import Observatory

/// Removing observations costs O(1): many observers of one messenger can die
/// without a scan per removal, and the others keep their order.
@Suite(.timeLimit(.minutes(1))) struct ObservationTableTests {
    @Test func aHundredThousandObserversOfOneMessengerDieQuickly() {
        let messenger = Messenger<Int>()
        var observers: [TestObserver] = (0..<100_000).map { _ in TestObserver() }
        for observer in observers {
            observer.observe(messenger) { (_: Int) in }
        }
        #expect(observationCount(of: messenger) == 100_000)
        let started = Date()
        observers.removeAll()
        let seconds = Date().timeIntervalSince(started)
        #expect(observationCount(of: messenger) == 0)
        // Generous: a debug build on a loaded machine. Each removal used to scan the
        // whole table, which took minutes; the benchmark measures the real figure.
        #expect(seconds < 20, "took \(seconds) s")
    }

    @Test func theSurvivorsKeepTheirOrderThroughRemovalsAndCompaction() {
        let messenger = Messenger<Int>()
        let received = Locked<[Int]>([])
        let observers: [TestObserver] = (0..<300).map { _ in TestObserver() }
        for (index, observer) in observers.enumerated() {
            observer.observe(messenger) { (_: Int) in received.withLock { $0.append(index) } }
        }
        // Remove two of every three, enough to compact, then send.
        for index in stride(from: 299, through: 0, by: -1) where index % 3 != 0 {
            observers[index].stopObserving(messenger)
        }
        messenger.send(1)
        #expect(received.withLock { $0 } == Array(stride(from: 0, to: 300, by: 3)))
        #expect(observationCount(of: messenger) == 100)
        withExtendedLifetime(observers) {}
    }

    @Test func observersThatDieLeaveTheSurvivorsInOrderThroughCompaction() {
        let messenger = Messenger<Int>()
        let received = Locked<[Int]>([])
        var observers: [TestObserver?] = (0..<300).map { _ in TestObserver() }
        for (index, observer) in observers.enumerated() {
            observer?.observe(messenger) { (_: Int) in received.withLock { $0.append(index) } }
        }
        // Two of every three die (their receivers end the observations), enough to compact.
        for index in observers.indices where index % 3 != 0 {
            observers[index] = nil
        }
        messenger.send(1)
        #expect(received.withLock { $0 } == Array(stride(from: 0, to: 300, by: 3)))
        #expect(observationCount(of: messenger) == 100)
        withExtendedLifetime(observers) {}
    }

    @Test func anObserverOfMessengersOfDifferentTypesThatDiesLeavesAll() {
        let numbers = Messenger<Int>()
        let texts = Messenger<String>()
        let received = Locked(0)
        var observer: TestObserver? = TestObserver()
        observer?.observe(numbers) { (_: Int) in received.withLock { $0 += 1 } }
        observer?.observe(texts) { (_: String) in received.withLock { $0 += 10 } }
        observer?.observe(texts) { (_: String, _: AnyAuthor) in received.withLock { $0 += 100 } }
        numbers.send(1)
        texts.send("a")
        #expect(received.withLock { $0 } == 111)
        observer = nil
        numbers.send(2)
        texts.send("b")
        #expect(received.withLock { $0 } == 111)
        #expect(observationCount(of: numbers) == 0)
        #expect(observationCount(of: texts) == 0)
    }

    @Test func anObserverAddedAgainAfterRemovalIsDeliveredLast() {
        let messenger = Messenger<String>()
        let received = Locked<[String]>([])
        let first = TestObserver()
        let second = TestObserver()
        first.observe(messenger) { (_: String) in received.withLock { $0.append("first") } }
        second.observe(messenger) { (_: String) in received.withLock { $0.append("second") } }
        first.stopObserving(messenger)
        first.observe(messenger) { (_: String) in received.withLock { $0.append("first again") } }
        messenger.send("x")
        #expect(received.withLock { $0 } == ["second", "first again"])
        #expect(observationCount(of: messenger) == 2)
    }

    @Test func anObserverWithTwoHandlersLosesBoth() {
        let messenger = Messenger<Int>()
        let received = Locked(0)
        let observer = TestObserver()
        observer.observe(messenger) { (_: Int) in received.withLock { $0 += 1 } }
        observer.observe(messenger) { (_: Int, _: AnyAuthor) in received.withLock { $0 += 10 } }
        messenger.send(1)
        #expect(received.withLock { $0 } == 11)
        observer.stopObserving(messenger)
        messenger.send(2)
        #expect(received.withLock { $0 } == 11)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func removingTheLastHandlerCutsItOffWithTheHolesBeforeIt() {
        let messenger = Messenger<String>()
        let received = Locked<[String]>([])
        let observers = ["a", "b", "c", "d", "e", "f"].map { name in (name, TestObserver()) }
        func start(_ index: Int) {
            let (name, observer) = observers[index]
            observer.observe(messenger) { (_: String) in received.withLock { $0.append(name) } }
        }
        for index in 0..<4 { start(index) }
        observers[1].1.stopObserving(messenger)
        observers[2].1.stopObserving(messenger)
        #expect(entryCount(of: messenger) == 4)
        observers[3].1.stopObserving(messenger)
        #expect(entryCount(of: messenger) == 1)
        start(4)
        start(5)
        observers[4].1.stopObserving(messenger)
        messenger.send("x")
        #expect(received.withLock { $0 } == ["a", "f"])
        #expect(observationCount(of: messenger) == 2)
        observers[5].1.stopObserving(messenger)
        observers[0].1.stopObserving(messenger)
        #expect(entryCount(of: messenger) == 0)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func observingAndStoppingOverAndOverLeavesNoEntriesBehind() {
        let messenger = Messenger<Int>()
        let steady = TestObserver()
        let transient = TestObserver()
        steady.observe(messenger) { (_: Int) in }
        for _ in 0..<10_000 {
            transient.observe(messenger) { (_: Int) in }
            transient.stopObserving(messenger)
        }
        #expect(entryCount(of: messenger) == 1)
        #expect(observationCount(of: messenger) == 1)
    }

    /// Entries of the table, holes included.
    private func entryCount<Message>(of messenger: Messenger<Message>) -> Int {
        messenger.core.lock.locked {
            let handlers = messenger.core.state.pointee.table.handlers
            return handlers.messageHandlers.count + handlers.authorHandlers.count
        }
    }
}
