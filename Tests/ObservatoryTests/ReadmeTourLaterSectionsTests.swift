import Dispatch
import Foundation
import Observatory
import Testing

// The tour of docs/core.md from "Caches, combined observation, promises" on, as
// code that compiles and asserts what the tour says (the sections before it
// are in ReadmeTourTests.swift). Keep them in step with the guide.

/// An observer: it owns a receiver.
private final class Dog: Observer, Sendable {
    let receiver = Receiver()
}

// MARK: Promises

/// An asynchronous call returning a promise, as in seed 001.
private func getID() -> Promise<Int> {
    Promise { promise in
        DispatchQueue.global().async {
            promise.fulfill(123)
        }
    }
}

@Suite struct ReadmeTourLaterSectionsTests {
    @Test func cachesAndWhenCached() {
        let messenger = Messenger<Int?>()
        let cache = messenger.cache() // latestMessage: Int?, never Int??
        var cached: [String] = []
        cache.whenCached { cached.append(String(describing: $0)) }

        messenger.send(nil)
        messenger.send(7)

        #expect(cached == ["7"])
        #expect(cache.latestMessage == 7)
    }

    @Test func combinedObservation() {
        let dog = Dog()
        let tv = Var("news")
        let bowl = Var("empty")
        let doorbell = Var(0)
        var moments: [String] = []
        dog.observe(tv, bowl, doorbell) { image, food, sound in
            moments.append("\(image.new), \(food.new), \(sound.new)")
        }

        bowl <- "meat"

        #expect(moments == ["news, meat, 0"])
    }

    @Test func promisesDeliverAsynchronousResults() async {
        let id = await getID().value
        #expect(id == 123)

        let text = await promise {
            getID()
        }.then { id in
            Promise<String> { $0.fulfill("ID \(id)") }
        }.map {
            $0.uppercased()
        }.value
        #expect(text == "ID 123")
    }

    @Test func promiseFulfilledAlreadyLetsAFunctionReturnEarly() {
        func load() -> Promise<Int> { .fulfilled(42) }
        var received: [Int] = []

        load().whenFulfilled { received.append($0) }.whenFulfilled { received.append($0 + 1) }

        #expect(received == [42, 43])
    }

    @Test func freeObservationStartsAnAdhocTransform() {
        let messenger = Messenger<Void>()
        var texts: [String] = []
        observe(messenger).map { "true" }.receive { texts.append($0) }
        defer { FreeObserver.shared.stopObserving(messenger) }

        messenger.send(())

        #expect(texts == ["true"])
    }

    @Test func updatesAsAnAsyncSequence() async {
        let number = Var(0)
        let updates = number.updates
        number <- 1
        number <- 2

        var received: [Int] = []
        for await update in updates {
            received.append(update.new)
            if received.count == 2 { break }
        }

        #expect(received == [1, 2])
    }

    @Test func keyedObservation() {
        struct Change {
            let key: String
            let value: Int
        }
        let observer = Dog()
        let changes = KeyedMessenger<String, Change> { $0.key }
        var kitchen: [Int] = []
        observer.observe(changes, key: "kitchen.light") { change in kitchen.append(change.value) }

        changes.send(Change(key: "kitchen.light", value: 1))
        changes.send(Change(key: "hall.light", value: 2))

        #expect(kitchen == [1])
    }

    @Test func bindingAndDistinct() {
        final class Label { var text = "" }
        let title = Var("Hello")
        let label = Label()
        title.bind(to: \.text, on: label) // sets "Hello" at once
        title <- "World"
        #expect(label.text == "World")

        final class Tab { var badge: Int? }
        let count = Var(3)
        let tab = Tab()
        count.bind(to: \.badge, on: tab) // tab.badge: Int?
        #expect(tab.badge == 3)

        let observer = Dog()
        let messenger = Messenger<Int>()
        var distinctNumbers: [Int] = []
        observer.observe(messenger).distinct { distinctNumbers.append($0) }
        for number in [1, 1, 2, 2, 1] { messenger.send(number) }
        #expect(distinctNumbers == [1, 2, 1])
    }
}
