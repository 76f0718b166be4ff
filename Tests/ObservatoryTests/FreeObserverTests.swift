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

    @Test func freeObserveWithoutAHandlerStartsAnAdhocTransform() {
        let messenger = Messenger<Void>()
        var received: [String] = []

        observe(messenger).map { "true" }.receive { received.append($0) }
        defer { FreeObserver.shared.stopObserving(messenger) }
        messenger.send(())

        #expect(received == ["true"])
        #expect(FreeObserver.shared.isObserving(messenger))
    }

    @Test func freeAdhocChainOffersTheTransformsOfAnObserversChain() {
        let numbers = Var<Int?>(nil)
        let author = Token()
        var received: [String] = []
        var selected = 0
        observe(numbers).new().unwrap().filter { $0 > 1 }.notFrom(author).map { "\($0)" }.distinct {
            received.append($0)
        }
        observe(numbers).new().select(7) { selected += 1 }
        defer { FreeObserver.shared.stopObserving(numbers) }

        for number in [1, 2, nil, 3, 7] { numbers <- number }
        numbers.set(4, as: author)
        numbers <- 7

        #expect(received == ["2", "3", "7"])
        #expect(selected == 2)
    }

    @Test func freeAdhocChainReceivesTheAuthor() {
        let messenger = Messenger<Int>()
        let author = Token()
        var authors: [AnyAuthor] = []

        observe(messenger).from(author).receive { _, author in authors.append(author) }
        defer { FreeObserver.shared.stopObserving(messenger) }
        messenger.send(1)
        messenger.send(2, from: author)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func stoppingTheSharedFreeObserverEndsAFreeAdhocChain() {
        let messenger = Messenger<Int>()
        var received: [Int] = []
        observe(messenger).map { $0 * 10 }.receive { received.append($0) }

        messenger.send(1)
        FreeObserver.shared.stopObserving(messenger)
        messenger.send(2)

        #expect(received == [10])
        #expect(!FreeObserver.shared.isObserving(messenger))
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func freeAdhocChainEndsWhenTheObservableStopsBeingObserved() {
        let messenger = Messenger<Int>()
        var received: [Int] = []
        observe(messenger).filter { $0 > 0 }.receive { received.append($0) }

        messenger.send(1)
        messenger.stopBeingObserved(by: FreeObserver.shared)
        messenger.send(2)

        #expect(received == [1])
    }

    @Test func freeAdhocChainIsReleasedWhenTheObservableDies() {
        var messenger: Messenger<Int>? = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        if let messenger {
            observe(messenger).map { $0 + 1 }.receive { [captured] _ in _ = captured }
        }
        captured = nil
        #expect(weakCaptured != nil)

        messenger = nil

        #expect(weakCaptured == nil)
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
