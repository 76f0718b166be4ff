import Observatory
import Testing

/// Something with a property to bind to, like a label.
private final class Label {
    var text = ""
    var count = 0
}

@Suite struct BindTests {
    @Test func bindingAVariableSetsTheCurrentValueAtOnce() {
        let title = Var("Hello")
        let label = Label()

        title.bind(to: \.text, on: label)

        #expect(label.text == "Hello")
    }

    @Test func bindingAVariableSetsEveryUpdate() {
        let title = Var("Hello")
        let label = Label()
        title.bind(to: \.text, on: label)

        title <- "World"
        #expect(label.text == "World")
        title <- "Again"

        #expect(label.text == "Again")
    }

    @Test func bindingAnObservableSetsEveryMessage() {
        let counts = Messenger<Int>()
        let label = Label()
        counts.bind(to: \.count, on: label)

        counts.send(3)
        counts.send(4)

        #expect(label.count == 4)
    }

    @Test func bindingDoesNotKeepTheObjectAlive() {
        let title = Var("Hello")
        var label: Label? = Label()
        weak let weakLabel = label
        if let label { title.bind(to: \.text, on: label) }

        label = nil

        #expect(weakLabel == nil)
    }

    @Test func bindingEndsWhenTheObjectDies() {
        let title = Var("Hello")
        var label: Label? = Label()
        weak let weakObserver = label.map { title.bind(to: \.text, on: $0) }
        #expect(observationCount(of: title) == 1)

        label = nil
        title <- "Nobody listens"

        #expect(observationCount(of: title) == 0)
        #expect(weakObserver == nil)
    }

    @Test func stoppingTheReturnedObserverEndsTheBinding() {
        let title = Var("Hello")
        let label = Label()
        let binding = title.bind(to: \.text, on: label)

        binding.stopObserving()
        title <- "Ignored"

        #expect(label.text == "Hello")
    }

    @Test func bindingOfATransformSetsTransformedValues() {
        let title = Var("abc")
        let length = title.new().map { $0.count }
        let label = Label()
        length.bind(to: \.count, on: label)

        title <- "abcdef"

        #expect(label.count == 6)
    }

    @Test func bindingThroughDistinctSkipsRepeatedValues() {
        let messenger = Messenger<Int>()
        let distinctNumbers = messenger.distinct()
        let label = Label()
        var sets = 0
        let observer = TestObserver()
        observer.observe(distinctNumbers) { _ in sets += 1 }
        distinctNumbers.bind(to: \.count, on: label)

        for number in [1, 1, 2, 2] { messenger.send(number) }

        #expect(label.count == 2)
        #expect(sets == 2)
    }
}
