import Dispatch
import Observatory
import Testing

/// An asynchronous call that fulfills its promise later, on another thread.
private func asyncNumber(_ number: Int) -> Promise<Int> {
    Promise { promise in
        DispatchQueue.global().async { promise.fulfill(number) }
    }
}

@Suite struct PromiseTests {
    @Test func fulfilledPromiseRunsEveryHandlerAtOnce() {
        let promise = Promise.fulfilled(42)
        var received: [String] = []

        promise.whenFulfilled { received.append("first \($0)") }
        promise.whenFulfilled { received.append("second \($0)") }
        promise.whenFulfilled { received.append("third \($0)") }

        #expect(received == ["first 42", "second 42", "third 42"])
        #expect(promise.fulfilled == 42)
        #expect(observationCount(of: promise) == 0)
    }

    @Test func functionCanReturnAFulfilledPromiseEarly() {
        func load(cached: Int?) -> Promise<Int> {
            if let cached { return .fulfilled(cached) }
            return Promise()
        }
        var received: [String] = []

        load(cached: 7).map { $0 * 6 }.then { .fulfilled("answer \($0)") }.whenFulfilled { received.append($0) }
        load(cached: nil).whenFulfilled { received.append("never \($0)") }

        #expect(received == ["answer 42"])
    }

    @Test func fulfillingAFulfilledPromiseChangesNothing() {
        let promise = Promise.fulfilled("first")
        let observer = TestObserver()
        var events = 0
        observer.observe(promise) { _ in events += 1 }

        promise.fulfill("second")

        #expect(promise.fulfilled == "first")
        #expect(events == 0)
    }

    @Test func valueOfAPromiseCreatedFulfilledIsReturnedAtOnce() async throws {
        let promise = Promise.fulfilled("ready")
        // Without a value, the await below would wait forever instead of failing.
        try #require(promise.fulfilled != nil)

        #expect(await promise.value == "ready")
    }

    @Test func whenFulfilledBeforeFulfilmentReceivesTheValueOnFulfilment() {
        let promise = Promise<Int>()
        var received: [Int] = []
        promise.whenFulfilled { received.append($0) }
        #expect(received.isEmpty)

        promise.fulfill(42)

        #expect(received == [42])
        #expect(promise.fulfilled == 42)
    }

    @Test func whenFulfilledAfterFulfilmentReceivesTheValueAtOnce() {
        let promise = Promise<String>()
        promise.fulfill("done")
        var received: [String] = []

        promise.whenFulfilled { received.append($0) }
        promise.whenFulfilled { received.append($0 + " again") }

        #expect(received == ["done", "done again"])
    }

    @Test func secondFulfilIsIgnored() {
        let promise = Promise<Int>()
        var received: [Int] = []
        promise.whenFulfilled { received.append($0) }
        let observer = TestObserver()
        var events = 0
        observer.observe(promise) { _ in events += 1 }

        promise.fulfill(1)
        promise.fulfill(2)

        #expect(received == [1])
        #expect(events == 1)
        #expect(promise.fulfilled == 1)
    }

    @Test func fulfillingSendsWasFulfilled() {
        let promise = Promise<Int>()
        let observer = TestObserver()
        var values: [Int] = []
        observer.observe(promise) { event in
            if case .wasFulfilled(let value) = event { values.append(value) }
        }

        promise.fulfill(5)

        #expect(values == [5])
    }

    @Test func convenienceInitializerStartsTheWork() {
        var started = false
        let promise = Promise<Int> { promise in
            started = true
            promise.fulfill(3)
        }
        #expect(started)
        #expect(promise.fulfilled == 3)
    }

    @Test func thenChainsPromisesSequentially() {
        let first = Promise<Int>()
        let second = Promise<String>()
        var takenInt: Int?
        var received: [String] = []
        promise {
            first
        }.then { number -> Promise<String> in
            takenInt = number
            return second
        }.whenFulfilled {
            received.append($0)
        }

        first.fulfill(7)
        #expect(takenInt == 7)
        #expect(received.isEmpty)
        second.fulfill("seven")

        #expect(received == ["seven"])
    }

    @Test func andCombinesTwoPromisesConcurrently() {
        let first = Promise<Int>()
        let second = Promise<String>()
        var received: [String] = []
        promise {
            first
        }.and {
            second
        }.whenFulfilled {
            received.append("\($0.0) \($0.1)")
        }

        second.fulfill("b")
        #expect(received.isEmpty)
        first.fulfill(1)

        #expect(received == ["1 b"])
    }

    @Test func mapTransformsTheValue() {
        let source = Promise<Int>()
        var received: [String] = []
        source.whenFulfilled { _ in }.map { "\($0)" }.whenFulfilled { received.append($0) }

        source.fulfill(12)

        #expect(received == ["12"])
    }

    @Test func unwrapWithDefaultReplacesNil() {
        let missing = Promise<Int?>()
        let present = Promise<Int?>()
        var received: [Int] = []
        missing.unwrap(0).whenFulfilled { received.append($0) }
        present.unwrap(0).whenFulfilled { received.append($0) }

        missing.fulfill(nil)
        present.fulfill(4)

        #expect(received == [0, 4])
    }

    @Test func newTakesTheNewValueOfAnUpdate() {
        let update = Promise<Update<Int>>()
        var received: [Int] = []
        update.new().whenFulfilled { received.append($0) }

        update.fulfill(Update(1, 2))

        #expect(received == [2])
    }

    @Test func valueAwaitsFulfilmentOnAnotherThread() async {
        let value = await asyncNumber(21).value
        #expect(value == 21)
    }

    @Test func valueOfAFulfilledPromiseIsReturnedAtOnce() async {
        let promise = Promise<String>()
        promise.fulfill("ready")
        #expect(await promise.value == "ready")
    }

    @Test func unheldPromiseChainStillDelivers() async {
        let sum = await asyncNumber(2).then { asyncNumber($0 + 3) }.map { $0 * 10 }.value
        #expect(sum == 50)
    }

    @Test func whenFulfilledAfterFulfilmentLeavesNoObservation() {
        let promise = Promise<Int>()
        promise.whenFulfilled { _ in }
        promise.fulfill(1)
        promise.whenFulfilled { _ in }

        #expect(observationCount(of: promise) == 0)
    }

    @Test func fulfilledPromiseReleasesItsHandlers() {
        let promise = Promise<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        promise.whenFulfilled { [captured] _ in _ = captured }
        captured = nil
        #expect(weakCaptured != nil)

        promise.fulfill(1)

        #expect(weakCaptured == nil)
    }

    @Test func unfulfilledPromiseThatDiesReleasesItsHandlers() {
        var promise: Promise<Int>? = Promise<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        promise?.whenFulfilled { [captured] _ in _ = captured }
        captured = nil

        promise = nil

        #expect(weakCaptured == nil)
    }

    @Test func concurrentFulfilmentsDeliverExactlyOneValue() {
        let promise = Promise<Int>()
        let received = ConcurrentValues<Int>()
        promise.whenFulfilled { received.record($0) }

        let finished = finishes(within: 20) {
            DispatchQueue.concurrentPerform(iterations: 8) { promise.fulfill($0) }
        }

        #expect(finished)
        #expect(received.count == 1)
        #expect(received.values.first == promise.fulfilled)
    }

    @Test func whenFulfilledRacingWithFulfilmentIsCalledExactlyOnce() {
        let calls = Counter()
        let finished = finishes(within: 20) {
            for _ in 0..<500 {
                let promise = Promise<Int>()
                DispatchQueue.concurrentPerform(iterations: 2) { thread in
                    if thread == 0 {
                        promise.fulfill(1)
                    } else {
                        promise.whenFulfilled { _ in calls.increment() }
                    }
                }
            }
        }

        #expect(finished)
        #expect(calls.value == 500)
    }
}
