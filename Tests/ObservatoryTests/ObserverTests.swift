import Observatory
import Testing

@Suite struct ObserverTests {
    @Test func handlerReceivesEveryMessageInSendOrder() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(messenger) { message in received.append(message) }

        messenger.send("a")
        messenger.send("b")
        messenger.send("c")

        #expect(received == ["a", "b", "c"])
    }

    @Test func handlerWithAuthorReceivesMessageAndAuthor() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        let author = Token()
        var received: [(Int, AnyAuthor)] = []
        observer.observe(messenger) { message, author in received.append((message, author)) }

        messenger.send(7, from: author)

        #expect(received.count == 1)
        #expect(received.first?.0 == 7)
        #expect(isSameObject(received.first?.1, author))
    }

    @Test func everyObservationOfTheSameObservableByOneObserverRuns() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var first: [Int] = []
        var second: [Int] = []
        var third: [Int] = []
        observer.observe(messenger) { first.append($0) }
        observer.observe(messenger) { message, _ in second.append(message) }
        observer.observe(messenger).map { $0 * 10 }.receive { third.append($0) }

        messenger.send(1)
        messenger.send(2)

        #expect(first == [1, 2])
        #expect(second == [1, 2])
        #expect(third == [10, 20])
    }

    @Test func isObservingTellsWhetherTheObserverObservesTheObservable() {
        let observed = Messenger<Int>()
        let other = Messenger<Int>()
        let observer = TestObserver()
        #expect(!observer.isObserving(observed))

        observer.observe(observed) { _ in }

        #expect(observer.isObserving(observed))
        #expect(!observer.isObserving(other))
        observer.stopObserving(observed)
        #expect(!observer.isObserving(observed))
    }

    @Test func isObservingCountsAdhocObservations() {
        let number = Var(0)
        let observer = TestObserver()

        observer.observe(number).new().receive { _ in }

        #expect(observer.isObserving(number))
    }

    @Test func stopObservingOneObservableKeepsTheOtherObservations() {
        let stopped = Messenger<Int>()
        let kept = Messenger<Int>()
        let observer = TestObserver()
        var fromStopped: [Int] = []
        var fromKept: [Int] = []
        observer.observe(stopped) { fromStopped.append($0) }
        observer.observe(stopped) { fromStopped.append($0) }
        observer.observe(kept) { fromKept.append($0) }

        observer.stopObserving(stopped)
        stopped.send(1)
        kept.send(2)

        #expect(fromStopped.isEmpty)
        #expect(fromKept == [2])
        #expect(!observer.isObserving(stopped))
        #expect(observer.isObserving(kept))
    }

    @Test func stopObservingWithoutArgumentEndsEveryObservation() {
        let first = Messenger<Int>()
        let second = Var(0)
        let observer = TestObserver()
        var received = 0
        observer.observe(first) { _ in received += 1 }
        observer.observe(second) { _ in received += 1 }

        observer.stopObserving()
        first.send(1)
        second <- 2

        #expect(received == 0)
        #expect(!observer.isObserving(first))
        #expect(!observer.isObserving(second))
    }

    @Test func observerCanObserveAgainAfterStopping() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(messenger) { received.append($0) }
        observer.stopObserving(messenger)

        observer.observe(messenger) { received.append($0 * 100) }
        messenger.send(1)

        #expect(received == [100])
    }

    @Test func startingToObserveSendsNothing() {
        let number = Var(42)
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received = 0

        observer.observe(number) { _ in received += 1 }
        observer.observe(messenger) { _ in received += 1 }
        observer.observe(number.new()) { _ in received += 1 }

        #expect(received == 0)
    }

    @Test func handlerThatStopsItsObserverReceivesNoFurtherMessages() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(messenger) { message in
            received.append(message)
            if message == 1 {
                observer.stopObserving(messenger)
                messenger.send(2)
            }
        }

        messenger.send(1)
        messenger.send(3)

        #expect(received == [1])
    }
}
