import Observatory
import Testing

@Suite struct ReceiverTests {
    @Test func deadObserversHandlersAreNotCalledAndAreReleased() {
        let messenger = Messenger<Int>()
        var observer: TestObserver? = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        var calls = 0
        observer?.observe(messenger) { [captured] _ in
            _ = captured
            calls += 1
        }
        captured = nil
        #expect(weakCaptured != nil)
        #expect(observationCount(of: messenger) == 1)

        observer = nil
        messenger.send(1)

        #expect(calls == 0)
        #expect(weakCaptured == nil)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func deadObserversSeveralObservationsAllEnd() {
        let first = Messenger<Int>()
        let second = Var(0)
        var observer: TestObserver? = TestObserver()
        observer?.observe(first) { _ in }
        observer?.observe(first) { _ in }
        observer?.observe(second) { _ in }
        observer?.observe(second).new().receive { _ in }
        #expect(observationCount(of: first) == 2)
        #expect(observationCount(of: second) == 2)

        observer = nil

        #expect(observationCount(of: first) == 0)
        #expect(observationCount(of: second) == 0)
    }

    @Test func deadObservableReleasesItsHandlersAndLeavesTheReceiverEmpty() {
        let observer = TestObserver()
        var messenger: Messenger<Int>? = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        weak let weakMessenger = messenger
        if let messenger {
            observer.observe(messenger) { [captured] _ in _ = captured }
        }
        captured = nil
        #expect(registryCount(of: observer) == 1)

        messenger = nil

        #expect(weakMessenger == nil)
        #expect(weakCaptured == nil)
        #expect(registryCount(of: observer) == 0)
    }

    @Test func deadVariableLeavesTheReceiverEmpty() {
        let observer = TestObserver()
        var number: Var<Int>? = Var(1)
        if let number {
            observer.observe(number) { _ in }
            observer.observe(number) { _ in }
        }

        number = nil

        #expect(registryCount(of: observer) == 0)
    }

    @Test func receiverRemembersEachObservableOnce() {
        let observer = TestObserver()
        let first = Messenger<Int>()
        let second = Messenger<String>()
        observer.observe(first) { _ in }
        observer.observe(first) { _ in }
        observer.observe(second) { _ in }

        #expect(registryCount(of: observer) == 2)

        observer.stopObserving(first)
        #expect(registryCount(of: observer) == 1)
        observer.stopObserving()
        #expect(registryCount(of: observer) == 0)
    }

    @Test func stopObservingReleasesTheHandlers() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        observer.observe(messenger) { [captured] _ in _ = captured }
        captured = nil

        observer.stopObserving(messenger)

        #expect(weakCaptured == nil)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func observerThatDiesInsideADeliveryGetsNoLaterMessage() {
        let messenger = Messenger<Int>()
        var doomed: TestObserver? = TestObserver()
        let killer = TestObserver()
        var doomedReceived: [Int] = []
        doomed?.observe(messenger) { doomedReceived.append($0) }
        killer.observe(messenger) { message in
            if message == 1 { doomed = nil }
        }

        messenger.send(1)
        messenger.send(2)

        // The doomed observer may or may not have run before the killer for
        // message 1, but it never sees message 2.
        #expect(!doomedReceived.contains(2))
        #expect(observationCount(of: messenger) == 1)
    }

    @Test func observerStoppedByAnotherHandlerGetsNoLaterMessage() {
        let messenger = Messenger<Int>()
        let stopped = TestObserver()
        let stopper = TestObserver()
        var stoppedReceived: [Int] = []
        stopped.observe(messenger) { stoppedReceived.append($0) }
        stopper.observe(messenger) { message in
            if message == 1 { stopped.stopObserving(messenger) }
        }

        messenger.send(1)
        messenger.send(2)

        #expect(!stoppedReceived.contains(2))
    }

    @Test func observerStoppedEarlierInTheSameDeliveryIsSkipped() {
        let messenger = Messenger<Int>()
        let stopper = TestObserver()
        let stopped = TestObserver()
        let bystander = TestObserver()
        var received: [String] = []
        stopper.observe(messenger) { message in
            received.append("stopper \(message)")
            if message == 1 { stopped.stopObserving(messenger) }
        }
        stopped.observe(messenger) { received.append("stopped \($0)") }
        bystander.observe(messenger) { (message: Int, _: AnyAuthor) in received.append("bystander \(message)") }

        messenger.send(1)
        messenger.send(2)

        #expect(received == ["stopper 1", "bystander 1", "stopper 2", "bystander 2"])
    }

    @Test func observerThatObservesAgainDuringADeliveryReceivesLaterMessages() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        let switcher = TestObserver()
        var received: [String] = []
        observer.observe(messenger) { received.append("old \($0)") }
        switcher.observe(messenger) { message in
            guard message == 1 else { return }
            observer.stopObserving(messenger)
            observer.observe(messenger) { received.append("new \($0)") }
        }

        messenger.send(1)
        messenger.send(2)

        let onlyNewObservationReceived = received.filter { $0.hasSuffix("2") } == ["new 2"]
        #expect(onlyNewObservationReceived)
    }
}
