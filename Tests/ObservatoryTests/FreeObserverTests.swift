import Dispatch
import Observatory
import Testing

@Suite struct FreeObserverTests {
    @Test func freeObserveUsesTheSharedFreeObserver() {
        let messenger = Messenger<String>()
        var received: [String] = []
        observe(messenger) { received.append($0) }
        defer { FreeObserver.shared.stopObserving(messenger) }

        messenger.send("free")

        #expect(received == ["free"])
        #expect(FreeObserver.shared.isObserving(messenger))
    }

    @Test func freeObserveCanReceiveTheAuthor() {
        let messenger = Messenger<Int>()
        let author = Token()
        var authors: [AnyAuthor] = []
        observe(messenger) { _, author in authors.append(author) }
        defer { FreeObserver.shared.stopObserving(messenger) }

        messenger.send(1, from: author)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func observedIsTheSameAsFreeObserve() {
        let number = Var(0)
        var updates: [Update<Int>] = []
        var authors: [AnyAuthor] = []
        number.observed { updates.append($0) }
        number.observed { _, author in authors.append(author) }

        number <- 1
        FreeObserver.shared.stopObserving(number)
        number <- 2

        #expect(updates == [Update(0, 1)])
        #expect(authors.count == 1)
    }

    @Test func ownFreeObserverObservesWhileItLives() {
        let messenger = Messenger<Int>()
        var observer: FreeObserver? = FreeObserver()
        var received: [Int] = []
        observer?.observe(messenger) { received.append($0) }

        messenger.send(1)
        observer = nil
        messenger.send(2)

        #expect(received == [1])
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func observeOnceReceivesExactlyOneMessage() {
        let messenger = Messenger<Int>()
        var received: [Int] = []

        observeOnce(messenger) { received.append($0) }
        messenger.send(1)
        messenger.send(2)

        #expect(received == [1])
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func observeOnceObserverDiesAfterTheMessage() {
        let messenger = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        weak let weakObserver = observeOnce(messenger) { [captured] _ in _ = captured }
        captured = nil
        #expect(weakObserver != nil)

        messenger.send(1)

        #expect(weakObserver == nil)
        #expect(weakCaptured == nil)
    }

    @Test func observeOnceWithAuthorReceivesTheAuthorOnce() {
        let messenger = Messenger<Int>()
        let author = Token()
        var authors: [AnyAuthor] = []

        observeOnce(messenger) { _, author in authors.append(author) }
        messenger.send(1, from: author)
        messenger.send(2)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func observedOnceReceivesExactlyOneMessage() {
        let number = Var(0)
        var updates: [Update<Int>] = []
        var authors: [AnyAuthor] = []
        weak let weakObserver = number.observedOnce { updates.append($0) }
        number.observedOnce { _, author in authors.append(author) }

        number <- 1
        number <- 2

        #expect(updates == [Update(0, 1)])
        #expect(authors.count == 1)
        #expect(weakObserver == nil)
        #expect(observationCount(of: number) == 0)
    }

    @Test func keepingTheObserveOnceObserverAllowsCancellingEarly() {
        let messenger = Messenger<Int>()
        var received: [Int] = []
        let observer = observeOnce(messenger) { received.append($0) }

        observer.stopObserving()
        messenger.send(1)

        #expect(received.isEmpty)
    }

    @Test func observeOnceOnAnObservableThatDiesReleasesEverything() {
        var messenger: Messenger<Int>? = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        var weakObserver: FreeObserver?
        if let messenger {
            weakObserver = observeOnce(messenger) { [captured] _ in _ = captured }
        }
        weak let observerAfterCall = weakObserver
        weakObserver = nil
        captured = nil

        messenger = nil

        #expect(weakCaptured == nil)
        #expect(observerAfterCall == nil)
    }

    @Test func observeOnceHandlerThatSendsAgainIsCalledOnce() {
        let messenger = Messenger<Int>()
        var received: [Int] = []

        observeOnce(messenger) { message in
            received.append(message)
            messenger.send(message + 1)
        }
        messenger.send(1)

        #expect(received == [1])
    }

    @Test func observeOnceReceivesExactlyOneOfManyConcurrentMessages() {
        let messenger = Messenger<Int>()
        let received = Counter()
        observeOnce(messenger) { _ in received.increment() }

        let finished = finishes(within: 20) {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<200 { messenger.send(thread * 1_000 + index) }
            }
        }

        #expect(finished)
        #expect(received.value == 1)
        #expect(observationCount(of: messenger) == 0)
    }
}
