import Observatory
import Testing

@Suite struct MessagesSequenceTests {
    @Test func updatesArriveInOrder() async {
        let number = Var(0)
        let updates = number.updates

        number <- 1
        number <- 2
        number <- 3
        let result = await collect(updates, limit: 3)

        #expect(result.elements == [Update(0, 1), Update(1, 2), Update(2, 3)])
    }

    @Test func forAwaitReceivesUpdatesSentFromAnotherTask() async {
        let number = Var(0)
        let updates = number.updates
        let consumer = Task { () -> [Int] in
            var values: [Int] = []
            for await update in updates {
                values.append(update.new)
                if values.count == 3 { break }
            }
            return values
        }

        for value in 1...3 { number <- value }
        let collected = await collect(
            AsyncStream { continuation in
                Task {
                    continuation.yield(await consumer.value)
                    continuation.finish()
                }
            }, limit: 1)

        #expect(collected.elements == [[1, 2, 3]])
    }

    @Test func messagesOfAMessengerArriveInOrder() async {
        let messenger = Messenger<String>()
        let messages = messenger.messages

        messenger.send("a")
        messenger.send("b")
        let result = await collect(messages, limit: 2)

        #expect(result.elements == ["a", "b"])
    }

    @Test func sequenceEndsWhenTheObservableDies() async {
        var number: Var<Int>? = Var(0)
        let updates = number?.updates ?? AsyncStream { $0.finish() }
        number? <- 1

        number = nil
        let result = await collect(updates, limit: 10)

        #expect(result.elements == [Update(0, 1)])
        #expect(result.finished)
    }

    @Test func sequenceDoesNotKeepTheObservableAlive() {
        var number: Var<Int>? = Var(0)
        weak let weakNumber = number
        let updates = number?.updates

        number = nil

        withExtendedLifetime(updates) {
            #expect(weakNumber == nil)
        }
    }

    @Test func sequenceEndsWhenTheTaskIsCancelled() async {
        let number = Var(0)
        let updates = number.updates
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task { () -> Int in
            var count = 0
            started.continuation.yield()
            for await _ in updates { count += 1 }
            return count
        }
        _ = await collect(started.stream, limit: 1)
        number <- 1

        consumer.cancel()
        let ended = await collect(
            AsyncStream { continuation in
                Task {
                    continuation.yield(await consumer.value)
                    continuation.finish()
                }
            }, limit: 1)

        #expect(ended.elements.count == 1)
        #expect(observationCount(of: number) == 0)
    }

    @Test func eachSequenceIsItsOwnObservation() async {
        let number = Var(0)
        let first = number.updates
        let second = number.updates
        #expect(observationCount(of: number) == 2)

        number <- 5

        #expect(await collect(first, limit: 1).elements == [Update(0, 5)])
        #expect(await collect(second, limit: 1).elements == [Update(0, 5)])
    }

    @Test func breakingOutOfTheLoopEndsTheObservation() async {
        let number = Var(0)
        await Task {
            let updates = number.updates
            number <- 1
            number <- 2
            for await update in updates where update.new == 1 {
                break
            }
        }.value

        #expect(observationCount(of: number) == 0)
    }

    @Test func droppingAnUnusedSequenceEndsTheObservation() {
        let number = Var(0)
        do {
            let updates = number.updates
            #expect(observationCount(of: number) == 1)
            _ = updates
        }

        #expect(observationCount(of: number) == 0)
    }
}
