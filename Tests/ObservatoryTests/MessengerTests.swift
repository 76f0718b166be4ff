import Observatory
import Testing

/// A custom observable object: it owns a messenger, as seed 000's `Sky` does.
private final class Sky: ObservableObject {
    enum Color: Equatable { case blue, grey, red }
    let messenger = Messenger<Color>()
}

/// A custom observable that *is* its messenger, as in seed 000.
private final class Model: Messenger<String>, ObservableCache {
    var latestMessage: String { state }
    var state = "initial state" {
        didSet {
            if state != oldValue { send(state) }
        }
    }
}

// Restated only to keep the build free of warnings: Swift warns on every
// subclass of `Messenger` otherwise (see the report on seed 000's `Model`).
extension Model: @unchecked Sendable {}

@Suite struct MessengerTests {
    @Test func messengerIsItsOwnMessenger() {
        let messenger = Messenger<Int>()
        #expect(isSameObject(messenger.messenger, messenger))
    }

    @Test func isObservedFollowsObservationsAndTheirObservers() {
        let messenger = Messenger<Int>()
        #expect(!messenger.isObserved)
        let first = TestObserver()
        first.observe(messenger) { _ in }
        #expect(messenger.isObserved)
        first.stopObserving(messenger)
        #expect(!messenger.isObserved)
        var second: TestObserver? = TestObserver()
        second?.observe(messenger) { _ in }
        #expect(messenger.isObserved)
        second = nil
        #expect(!messenger.isObserved)
    }

    @Test func sendWithoutAuthorMakesTheMessengerTheAuthor() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var author: AnyAuthor?
        observer.observe(messenger) { _, messageAuthor in author = messageAuthor }

        messenger.send(1)

        #expect(isSameObject(author, messenger))
    }

    @Test func sendWithoutAuthorMakesTheCustomObservableTheAuthor() {
        let sky = Sky()
        let observer = TestObserver()
        var received: [(Sky.Color, AnyAuthor)] = []
        observer.observe(sky) { color, author in received.append((color, author)) }

        sky.send(.grey)

        #expect(received.count == 1)
        #expect(received.first?.0 == .grey)
        #expect(isSameObject(received.first?.1, sky))
    }

    @Test func sendFromAuthorDeliversThatAuthor() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        let author = Token()
        var authors: [AnyAuthor] = []
        observer.observe(messenger) { _, messageAuthor in authors.append(messageAuthor) }

        messenger.send("hi", from: author)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func messageSentFromHandlerReachesEveryObserverAfterTheCurrentMessage() {
        let messenger = Messenger<Int>()
        let observers = (0..<4).map { _ in TestObserver() }
        var logs = Array(repeating: [Int](), count: observers.count)
        for (index, observer) in observers.enumerated() {
            observer.observe(messenger) { message in
                logs[index].append(message)
                if message == 1 { messenger.send(2) }
            }
        }

        messenger.send(1)

        // Every observer's handler sends 2 once, from inside the delivery of 1.
        for log in logs {
            #expect(log == [1, 2, 2, 2, 2])
        }
    }

    @Test func nestedSendsAreDeliveredInTheOrderSendWasCalled() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(messenger) { message in
            received.append(message)
            switch message {
            case 1:
                messenger.send(2)
                messenger.send(3)
            case 2:
                messenger.send(4)
            default:
                break
            }
        }

        messenger.send(1)

        #expect(received == [1, 2, 3, 4])
    }

    @Test func stopBeingObservedByOneObserverEndsOnlyItsObservations() {
        let messenger = Messenger<Int>()
        let stopped = TestObserver()
        let kept = TestObserver()
        var toStopped = 0
        var toKept = 0
        stopped.observe(messenger) { _ in toStopped += 1 }
        stopped.observe(messenger) { _ in toStopped += 1 }
        kept.observe(messenger) { _ in toKept += 1 }

        messenger.stopBeingObserved(by: stopped)
        messenger.send(1)

        #expect(toStopped == 0)
        #expect(toKept == 1)
        #expect(!stopped.isObserving(messenger))
        #expect(kept.isObserving(messenger))
    }

    @Test func stopBeingObservedEndsEveryObservation() {
        let sky = Sky()
        let first = TestObserver()
        let second = TestObserver()
        var received = 0
        first.observe(sky) { _ in received += 1 }
        second.observe(sky) { _ in received += 1 }

        sky.stopBeingObserved()
        sky.send(.red)

        #expect(received == 0)
        #expect(!first.isObserving(sky))
        #expect(!second.isObserving(sky))
        #expect(observationCount(of: sky) == 0)
    }

    @Test func stopBeingObservedLeavesTheObserversReceiverEmpty() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        observer.observe(messenger) { _ in }

        messenger.stopBeingObserved()

        #expect(registryCount(of: observer) == 0)
    }

    @Test func subclassOfMessengerSendsItsStateAndIsACache() {
        let model = Model()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(model) { received.append($0) }

        model.state = "second state"
        model.state = "second state"
        model.send()

        #expect(isSameObject(model.messenger, model))
        #expect(model.latestMessage == "second state")
        #expect(received == ["second state", "second state"])
    }

    @Test func messengerSendsMessagesOfAnyType() {
        let messenger = Messenger<[String: Int]>()
        let observer = TestObserver()
        var received: [[String: Int]] = []
        observer.observe(messenger) { received.append($0) }

        messenger.send(["a": 1])

        #expect(received == [["a": 1]])
    }

    @Test func observationStartedDuringADeliveryReceivesOnlyLaterMessages() {
        let messenger = Messenger<Int>()
        let starter = TestObserver()
        let latecomer = TestObserver()
        var lateReceived: [Int] = []
        starter.observe(messenger) { message in
            if message == 1 { latecomer.observe(messenger) { lateReceived.append($0) } }
        }

        messenger.send(1)
        messenger.send(2)

        #expect(lateReceived == [2])
    }
}
