import Observatory
import Testing

@Suite struct AdhocTransformTests {
    @Test func mapTransformsEveryMessage() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        var received: [Int?] = []
        observer.observe(messenger).map({ Int($0) }) { received.append($0) }

        messenger.send("12")
        messenger.send("twelve")

        #expect(received == [12, nil])
    }

    @Test func newTakesTheNewValueOfEveryUpdate() {
        let errorCode = Var(0)
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(errorCode).new { received.append($0) }

        errorCode <- 404
        errorCode <- 500

        #expect(received == [404, 500])
    }

    @Test func filterLetsThroughOnlyIncludedMessages() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(messenger).filter({ $0.count < 10 }) { received.append($0) }

        messenger.send("short")
        messenger.send("much too long")
        messenger.send("tiny")

        #expect(received == ["short", "tiny"])
    }

    @Test func selectCallsAHandlerWithoutArgumentForTheSelectedMessageOnly() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        var notifications = 0
        observer.observe(messenger).select("my notification") {
            notifications += 1
        }

        messenger.send("other")
        messenger.send("my notification")
        messenger.send("my notification")

        #expect(notifications == 2)
    }

    @Test func selectCanHandTheAuthor() {
        let messenger = Messenger<String>()
        let observer = TestObserver()
        let author = Token()
        var authors: [AnyAuthor] = []
        observer.observe(messenger).select("ping") { (author: AnyAuthor) in authors.append(author) }

        messenger.send("ping", from: author)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func unwrapDropsNilMessages() {
        let errorCodes = Messenger<Int?>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(errorCodes).unwrap { received.append($0) }

        errorCodes.send(nil)
        errorCodes.send(3)
        errorCodes.send(nil)

        #expect(received == [3])
    }

    @Test func unwrapWithDefaultReplacesNil() {
        let points = Messenger<Int?>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(points).unwrap(0) { received.append($0) }

        points.send(nil)
        points.send(7)

        #expect(received == [0, 7])
    }

    @Test func filterAuthorLetsThroughOnlyIncludedAuthors() {
        let messenger = Messenger<String>()
        let friend = Token()
        let stranger = Token()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(messenger).filterAuthor({ $0 === friend }) { received.append($0) }

        messenger.send("from friend", from: friend)
        messenger.send("from stranger", from: stranger)
        messenger.send("from messenger")

        #expect(received == ["from friend"])
    }

    @Test func fromLetsThroughOnlyTheSelectedAuthor() {
        let messenger = Messenger<String>()
        let joe = Token()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(messenger).from(joe) { received.append($0) }

        messenger.send("joe", from: joe)
        messenger.send("someone", from: Token())
        messenger.send("messenger")

        #expect(received == ["joe"])
    }

    @Test func notFromDropsTheExcludedAuthor() {
        let messenger = Messenger<String>()
        let hal9000 = Token()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(messenger).notFrom(hal9000) { received.append($0) }

        messenger.send("evil", from: hal9000)
        messenger.send("human", from: Token())
        messenger.send("messenger")

        #expect(received == ["human", "messenger"])
    }

    @Test func fromHoldsItsAuthorWeaklyAndPassesNothingOnceItDied() {
        let messenger = Messenger<String>()
        var joe: Token? = Token()
        weak let weakJoe = joe
        let observer = TestObserver()
        var received: [String] = []
        if let joe {
            observer.observe(messenger).from(joe) { received.append($0) }
            messenger.send("while alive", from: joe)
        }

        joe = nil
        messenger.send("after", from: Token())
        messenger.send("from messenger")

        #expect(weakJoe == nil)
        #expect(received == ["while alive"])
    }

    @Test func notFromHoldsItsAuthorWeaklyAndPassesEverythingOnceItDied() {
        let messenger = Messenger<String>()
        var hal: Token? = Token()
        weak let weakHal = hal
        let observer = TestObserver()
        var received: [String] = []
        if let hal {
            observer.observe(messenger).notFrom(hal) { received.append($0) }
            messenger.send("blocked", from: hal)
        }

        hal = nil
        messenger.send("after", from: Token())

        #expect(weakHal == nil)
        #expect(received == ["after"])
    }

    @Test func authorPassesThroughTheWholeChain() {
        let number = Var(0)
        let author = Token()
        let observer = TestObserver()
        var authors: [AnyAuthor] = []
        observer.observe(number).new().map({ $0 * 2 }).filter({ $0 > 0 }) { _, author in
            authors.append(author)
        }

        number.set(1, as: author)

        #expect(authors.count == 1)
        #expect(isSameObject(authors.first, author))
    }

    @Test func receiveEndsAChainWithAHandler() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received: [Bool] = []
        observer.observe(messenger).map {
            $0 == 1
        }.receive {
            received.append($0)
        }

        messenger.send(1)
        messenger.send(2)

        #expect(received == [true, false])
    }

    @Test func titleLengthChainOfSeed000() {
        let title = Var<String?>()
        let observer = TestObserver()
        var lengths: [Int] = []
        observer.observe(title).new().unwrap("Untitled").map({ $0.count }) { titleLength in
            lengths.append(titleLength)
        }

        title <- "Observatory"
        title <- nil

        #expect(lengths == [11, 8])
    }

    @Test func numbersChainOfSeed000() {
        let numbers = Messenger<Int>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(numbers).map {
            "\($0)"
        }.filter {
            $0.count > 1
        }.map {
            Int($0)
        }.unwrap {
            received.append($0)
        }

        for number in [1, 23, 4, 567] { numbers.send(number) }

        #expect(received == [23, 567])
    }

    @Test func distinctDropsConsecutiveDuplicates() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(messenger).distinct { received.append($0) }

        for number in [1, 1, 2, 2, 2, 1, 3, 3] { messenger.send(number) }

        #expect(received == [1, 2, 1, 3])
    }

    @Test func distinctOfTwoObservationsKeepsSeparateMemories() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var first: [Int] = []
        var second: [Int] = []
        observer.observe(messenger).distinct { first.append($0) }
        messenger.send(1)
        observer.observe(messenger).distinct { second.append($0) }
        messenger.send(1)

        #expect(first == [1])
        #expect(second == [1])
    }

    @Test func adhocChainStartsNoObservationUntilItEndsInAHandler() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()

        _ = observer.observe(messenger).map { $0 + 1 }.filter { $0 > 0 }

        #expect(!observer.isObserving(messenger))
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func deadObserverReleasesItsAdhocChain() {
        let messenger = Messenger<Int>()
        var observer: TestObserver? = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        observer?.observe(messenger).map { [captured] message -> Int in
            _ = captured
            return message
        }.filter { $0 > 0 }.receive { _ in }
        captured = nil

        observer = nil

        #expect(weakCaptured == nil)
        #expect(observationCount(of: messenger) == 0)
    }
}
