import Dispatch
import Observatory
import Testing

@Suite struct TransformTests {
    @Test func mapObjectSendsMappedMessages() {
        let messenger = Messenger<String>()
        let stringToInt = messenger.map { Int($0) }
        let observer = TestObserver()
        var received: [Int?] = []
        observer.observe(stringToInt) { received.append($0) }

        messenger.send("1")
        messenger.send("x")

        #expect(received == [1, nil])
    }

    @Test func newObjectSendsNewValues() {
        let errorCode = Var<Int>()
        let newErrorCode = errorCode.new()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(newErrorCode) { received.append($0) }

        errorCode <- 404

        #expect(received == [404])
    }

    @Test func filterObjectSendsOnlyIncludedMessages() {
        let messenger = Messenger<String>()
        let shortMessages = messenger.filter { $0.count < 10 }
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(shortMessages) { received.append($0) }

        messenger.send("short")
        messenger.send("far too long a message")

        #expect(received == ["short"])
    }

    @Test func filterMadeWithItsInitializerSendsOnlyIncludedMessages() {
        let number = Var(0)
        let positive = Filter(number) { $0.new > 0 }
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(positive) { received.append($0.new) }

        number <- 3
        number <- -1
        number <- 4

        #expect(received == [3, 4])
    }

    @Test func selectObjectSendsVoidForTheSelectedMessage() {
        let messenger = Messenger<String>()
        let myNotifier = messenger.select("my notification")
        let observer = TestObserver()
        var notifications = 0
        observer.observe(myNotifier) {
            notifications += 1
        }

        messenger.send("my notification")
        messenger.send("something else")

        #expect(notifications == 1)
    }

    @Test func unwrapObjectDropsNil() {
        let errorCodes = Messenger<Int?>()
        let errorAlert = errorCodes.unwrap()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(errorAlert) { received.append($0) }

        errorCodes.send(nil)
        errorCodes.send(1)

        #expect(received == [1])
    }

    @Test func unwrapObjectWithDefaultReplacesNil() {
        let points = Messenger<Int?>()
        let pointsToShow = points.unwrap(0)
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(pointsToShow) { received.append($0) }

        points.send(nil)
        points.send(5)

        #expect(received == [0, 5])
    }

    @Test func authorFilterObjectsFilterByAuthor() {
        let messenger = Messenger<String>()
        let joe = Token()
        let hal9000 = Token()
        let friendMessages = messenger.filterAuthor { $0 === joe }
        let joesMessages = messenger.from(joe)
        let humanMessages = messenger.notFrom(hal9000)
        let observer = TestObserver()
        var friends: [String] = []
        var joes: [String] = []
        var humans: [String] = []
        observer.observe(friendMessages) { friends.append($0) }
        observer.observe(joesMessages) { joes.append($0) }
        observer.observe(humanMessages) { humans.append($0) }

        messenger.send("joe", from: joe)
        messenger.send("hal", from: hal9000)
        messenger.send("messenger")

        #expect(friends == ["joe"])
        #expect(joes == ["joe"])
        #expect(humans == ["joe", "messenger"])
    }

    @Test func authorFilterObjectsHoldTheirAuthorWeakly() {
        let messenger = Messenger<String>()
        var author: Token? = Token()
        weak let weakAuthor = author
        let observer = TestObserver()
        var fromAuthor: [String] = []
        var notFromAuthor: [String] = []
        var transforms: [Filter<Messenger<String>>] = []
        if let author {
            transforms = [messenger.from(author), messenger.notFrom(author)]
            messenger.send("by author", from: author)
        }
        observer.observe(transforms[0]) { fromAuthor.append($0) }
        observer.observe(transforms[1]) { notFromAuthor.append($0) }

        author = nil
        messenger.send("after", from: Token())

        #expect(weakAuthor == nil)
        #expect(fromAuthor.isEmpty)
        #expect(notFromAuthor == ["after"])
    }

    @Test func transformPassesTheAuthorThrough() {
        let number = Var(0)
        let doubled = number.new().map { $0 * 2 }
        let author = Token()
        let observer = TestObserver()
        var authors: [AnyAuthor] = []
        observer.observe(doubled) { _, author in authors.append(author) }

        number.set(2, as: author)
        number <- 3

        #expect(authors.count == 2)
        #expect(isSameObject(authors.first, author))
        #expect(isSameObject(authors.last, number))
    }

    @Test func titleLengthObjectOfSeed000() {
        let title = Var<String?>()
        let titleLength = title.new().unwrap("Untitled").map { $0.count }
        let observer = TestObserver()
        var lengths: [Int] = []
        observer.observe(titleLength) { lengths.append($0) }

        title <- "Hi"
        title <- nil

        #expect(lengths == [2, 8])
    }

    @Test func originIsTheObservedObject() {
        let title = Var("Title")
        let newTitle = title.new()
        let titleLength = newTitle.map { $0.count }

        #expect(titleLength.origin === newTitle)
        #expect(titleLength.origin.origin === title)
    }

    @Test func replacingTheOriginMovesTheObservationAsInSeed000() {
        let titleLength = Var("Dummy Title").new().map { $0.count }
        let title = Var("Real Title")
        let observer = TestObserver()
        var lengths: [Int] = []
        observer.observe(titleLength) { lengths.append($0) }

        let dummy = titleLength.origin.origin
        titleLength.origin.origin = title
        dummy <- "Ignored"
        title <- "Four"

        #expect(titleLength.origin.origin === title)
        #expect(lengths == [4])
        #expect(titleLength.latestMessage == 4)
    }

    @Test func oneTransformObjectServesTwoObservers() {
        let messenger = Messenger<Int>()
        let evens = messenger.filter { $0 % 2 == 0 }
        let first = TestObserver()
        let second = TestObserver()
        var toFirst: [Int] = []
        var toSecond: [Int] = []
        first.observe(evens) { toFirst.append($0) }
        second.observe(evens) { toSecond.append($0) }

        for number in 1...4 { messenger.send(number) }

        #expect(toFirst == [2, 4])
        #expect(toSecond == [2, 4])
    }

    @Test func transformObjectsChainFreely() {
        let numbers = Messenger<Int>()
        let chain = numbers.map { "\($0)" }.filter { $0.count > 1 }.map { Int($0) }.unwrap()
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(chain) { received.append($0) }

        for number in [5, 55, 6, 66] { numbers.send(number) }

        #expect(received == [55, 66])
    }

    @Test func sendingToATransformReachesItsObservers() {
        let messenger = Messenger<Int>()
        let doubled = messenger.map { $0 * 2 }
        let observer = TestObserver()
        var received: [Int] = []
        observer.observe(doubled) { received.append($0) }

        doubled.send(5)

        #expect(received == [5])
    }

    @Test func distinctObjectDropsConsecutiveDuplicates() {
        let messenger = Messenger<String>()
        let distinctMessages = messenger.distinct()
        let observer = TestObserver()
        var received: [String] = []
        observer.observe(distinctMessages) { received.append($0) }

        for text in ["a", "a", "b", "a", "a"] { messenger.send(text) }

        #expect(received == ["a", "b", "a"])
    }

    @Test func distinctObjectServesTwoObserversTheSameMessages() {
        let messenger = Messenger<Int>()
        let distinctNumbers = messenger.distinct()
        let first = TestObserver()
        let second = TestObserver()
        var toFirst: [Int] = []
        var toSecond: [Int] = []
        first.observe(distinctNumbers) { toFirst.append($0) }
        second.observe(distinctNumbers) { toSecond.append($0) }

        for number in [1, 1, 2] { messenger.send(number) }

        #expect(toFirst == [1, 2])
        #expect(toSecond == [1, 2])
    }

    @Test func replacingTheOriginEndsTheObservationOfTheOldOrigin() {
        let old = Var("old")
        let new = Var("new")
        let length = old.new().map { $0.count }
        let newOld = length.origin
        #expect(observationCount(of: old) == 1)

        newOld.origin = new

        #expect(observationCount(of: old) == 0)
        #expect(observationCount(of: new) == 1)
        #expect(registryCount(of: newOld) == 1)
    }

    @Test func selectWorksOnUpdatesOfVariables() {
        let number = Var(1)
        let oneToTwo = number.select(Update(1, 2))
        let observer = TestObserver()
        var selections = 0
        observer.observe(oneToTwo) { selections += 1 }

        number <- 2
        number <- 3
        number <- 2

        #expect(selections == 1)
    }

    @Test func concurrentOriginReplacementsLeaveExactlyTheFinalOriginObserved() {
        let transform = Var(0).new()
        var inconsistentRounds = 0

        for round in 0..<3_000 {
            let candidates = [transform.origin, Var(round), Var(-round)]
            let startLine = StartLine(runners: 2)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                startLine.arriveAndWait()
                transform.origin = candidates[thread + 1]
            }
            let observed = candidates.filter { observationCount(of: $0) > 0 }
            let isConsistent =
                observed.count == 1
                && observed.first === transform.origin
                && observationCount(of: transform.origin) == 1
            if !isConsistent { inconsistentRounds += 1 }
        }

        #expect(inconsistentRounds == 0)
    }
}
