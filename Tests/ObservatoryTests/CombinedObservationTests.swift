import Observatory
import Testing

@Suite struct CombinedObservationTests {
    @Test func combinedObservationOfTwoCachesPullsTheOtherLatestMessage() {
        let bowl = Var("empty")
        let doorbell = Var(0)
        // Transform objects must be held, as seed 000 says.
        let food = bowl.new()
        let rings = doorbell.new()
        let dog = TestObserver()
        var received: [(String, Int)] = []
        dog.observe(food, rings) { meal, ringCount in received.append((meal, ringCount)) }

        bowl <- "meat"
        doorbell <- 1

        #expect(received.map(\.0) == ["meat", "meat"])
        #expect(received.map(\.1) == [0, 1])
    }

    @Test func combinedObservationOfTwoVariablesReceivesUpdates() {
        let first = Var(1)
        let second = Var("a")
        let observer = TestObserver()
        var received: [(Update<Int>, Update<String>)] = []
        observer.observe(first, second) { received.append(($0, $1)) }

        second <- "b"

        #expect(received.count == 1)
        #expect(received.first?.0 == Update(1, 1))
        #expect(received.first?.1 == Update("a", "b"))
    }

    @Test func combinedObservationOfTwoCachesCanReceiveTheAuthor() {
        let first = Var(1)
        let second = Var(2)
        let author = Token()
        let observer = TestObserver()
        var authors: [AnyAuthor] = []
        observer.observe(first, second) { _, _, author in authors.append(author) }

        first.set(10, as: author)
        second <- 20

        #expect(authors.count == 2)
        #expect(isSameObject(authors.first, author))
        #expect(isSameObject(authors.last, second))
    }

    @Test func combinedObservationOfThreeCachesPullsTheOtherTwo() {
        let tv = Var("news")
        let bowl = Var("empty")
        let doorbell = Messenger<String>().cache()
        let images = tv.new()
        let food = bowl.new()
        let dog = TestObserver()
        var received: [String] = []
        dog.observe(images, food, doorbell) { image, food, sound in
            received.append("\(image)|\(food)|\(sound ?? "silence")")
        }

        tv <- "film"
        bowl <- "meat"
        doorbell.send("ding")

        #expect(received == ["film|empty|silence", "film|meat|silence", "film|meat|ding"])
    }

    @Test func combinedObservationOfThreeCachesCanReceiveTheAuthor() {
        let first = Var(1)
        let second = Var(2)
        let third = Var(3)
        let author = Token()
        let observer = TestObserver()
        var sums: [Int] = []
        var authors: [AnyAuthor] = []
        let ones = first.new()
        let twos = second.new()
        let threes = third.new()
        observer.observe(ones, twos, threes) { one, two, three, author in
            sums.append(one + two + three)
            authors.append(author)
        }

        third.set(30, as: author)

        #expect(sums == [33])
        #expect(isSameObject(authors.first, author))
    }

    @Test func combinedObservationCountsAsObservingEveryObservable() {
        let first = Var(1)
        let second = Var(2)
        let observer = TestObserver()

        observer.observe(first, second) { _, _ in }

        #expect(observer.isObserving(first))
        #expect(observer.isObserving(second))
    }

    @Test func combinedObservationDoesNotKeepTheObservablesAlive() {
        var first: Var<Int>? = Var(1)
        var second: Var<Int>? = Var(2)
        weak let weakFirst = first
        weak let weakSecond = second
        let observer = TestObserver()
        if let first, let second {
            observer.observe(first, second) { _, _ in }
        }

        first = nil
        second = nil

        #expect(weakFirst == nil)
        #expect(weakSecond == nil)
        #expect(registryCount(of: observer) == 0)
    }
}
