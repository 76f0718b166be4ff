import Dispatch
import Observatory
import Testing

/// A custom cache whose messages are optional, as seed 000 allows.
private final class Inbox: ObservableCache {
    let messenger = Messenger<String?>()
    var latestMessage: String? { "latest mail" }
}

@Suite struct CacheTests {
    @Test func sendWithoutArgumentSendsTheLatestMessage() {
        let inbox = Inbox()
        let observer = TestObserver()
        var received: [String?] = []
        var authors: [AnyAuthor] = []
        observer.observe(inbox) { message, author in
            received.append(message)
            authors.append(author)
        }

        inbox.send()

        #expect(received == ["latest mail"])
        #expect(isSameObject(authors.first, inbox))
    }

    @Test func cacheRemembersTheLatestMessage() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        #expect(cache.latestMessage == nil)

        messenger.send(1)
        messenger.send(2)

        #expect(cache.latestMessage == 2)
    }

    @Test func cacheForwardsMessages() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        let observer = TestObserver()
        var received: [Int?] = []
        observer.observe(cache) { received.append($0) }

        messenger.send(3)

        #expect(received == [3])
    }

    @Test func cacheOfOptionalMessagesIsNotDoublyOptional() {
        let messenger = Messenger<Int?>()
        let cache = messenger.cache()

        messenger.send(5)
        let latest = cache.latestMessage

        #expect(type(of: latest) == Int?.self)
        #expect(latest == 5)
        messenger.send(nil)
        #expect(cache.latestMessage == nil)
    }

    @Test func cacheOfPlainMessagesHasOptionalLatestMessage() {
        let cache = Messenger<String>().cache()
        #expect(type(of: cache.latestMessage) == String?.self)
    }

    @Test func cacheSendsItsLatestMessageOnRequest() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        let observer = TestObserver()
        var received: [Int?] = []
        observer.observe(cache) { received.append($0) }
        messenger.send(8)

        cache.send()

        #expect(received == [8, 8])
    }

    @Test func mapOfACacheIsACacheOfTheTransformedLatestMessage() {
        let number = Var(4)
        let doubled = number.map { $0.new * 2 }
        let newNumber = number.new()
        #expect(doubled.latestMessage == 8)
        #expect(newNumber.latestMessage == 4)

        number <- 5

        #expect(doubled.latestMessage == 10)
        #expect(newNumber.latestMessage == 5)
    }

    @Test func unwrapWithDefaultOfACacheIsACache() {
        let messenger = Messenger<Int?>()
        let cache = messenger.cache()
        let shown = cache.unwrap(0)
        #expect(shown.latestMessage == 0)

        messenger.send(9)

        #expect(shown.latestMessage == 9)
    }

    @Test func sendingThroughAMapOfACacheDoesNotChangeItsLatestMessage() {
        let number = Var(1)
        let newNumber = number.new()

        newNumber.send(99)

        #expect(newNumber.latestMessage == 1)
    }

    @Test func mapOfACacheSendsTheTransformedLatestMessageOnRequest() {
        let number = Var(6)
        let text = number.new().map { "\($0)" }
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(text) { received.append($0) }

        text.send()

        #expect(received == ["6"])
    }

    @Test func whenCachedDeliversAnAvailableMessageAtOnce() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        messenger.send(4)
        var received: [Int] = []

        cache.whenCached { received.append($0) }

        #expect(received == [4])
        messenger.send(5)
        #expect(received == [4])
    }

    @Test func whenCachedWaitsForTheFirstMessageThatIsNotNil() {
        let messenger = Messenger<Int?>()
        let cache = messenger.cache()
        // Described as text so that this compiles whether or not the cache is
        // (wrongly) doubly optional, and fails at run time if it is.
        var received: [String] = []

        cache.whenCached { received.append(String(describing: $0)) }
        #expect(received.isEmpty)
        messenger.send(nil)
        #expect(received.isEmpty)
        messenger.send(7)
        messenger.send(8)

        #expect(received == ["7"])
    }

    @Test func whenCachedLeavesNoObservationBehind() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        var received = 0
        cache.whenCached { _ in received += 1 }

        messenger.send(1)

        #expect(received == 1)
        #expect(observationCount(of: cache) == 0)
    }

    @Test func whenCachedOnACacheThatDiesReleasesItsHandler() {
        var cache: Cache<Messenger<Int>, Int>? = Messenger<Int>().cache()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        cache?.whenCached { [captured] _ in _ = captured }
        captured = nil
        #expect(weakCaptured != nil)

        cache = nil

        #expect(weakCaptured == nil)
    }

    @Test func whenCachedIsCalledOnceUnderConcurrentMessages() {
        let messenger = Messenger<Int>()
        let cache = messenger.cache()
        let received = Counter()
        cache.whenCached { _ in received.increment() }

        let finished = finishes(within: 20) {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<200 { messenger.send(thread * 1_000 + index) }
            }
        }

        #expect(finished)
        #expect(received.value == 1)
        #expect(observationCount(of: cache) == 0)
    }

    @Test func bufferedObservableIsTheEarlierNameOfObservableCache() {
        final class Model: BufferedObservable {
            let messenger = Messenger<Update<String>>()
            var state = "initial"
            var latestMessage: Update<String> { Update(state, state) }
        }
        let model = Model()
        let observer = TestObserver()
        var received: [Update<String>] = []
        observer.observe(model) { received.append($0) }
        model.send()
        #expect(received == [Update("initial", "initial")])
    }
}
