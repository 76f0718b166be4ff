import Observatory
import Testing

/// Something with a property to bind to, like a label.
private final class Label {
    var text = ""
    var count = 0
}

/// Something with an optional property, like a tab's badge that may be absent.
private final class Tab {
    var badge: Int?
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

    @Test func bindingAVariableToAnOptionalPropertySetsItsValueNowAndAfterEveryUpdate() {
        let count = Var(1)
        let tab = Tab()

        count.bind(to: \.badge, on: tab)
        #expect(tab.badge == 1)
        count <- 2

        #expect(tab.badge == 2)
    }

    @Test func bindingAnObservableToAnOptionalPropertySetsEveryMessage() {
        let counts = Messenger<Int>()
        let tab = Tab()
        counts.bind(to: \.badge, on: tab)
        #expect(tab.badge == nil)

        counts.send(3)

        #expect(tab.badge == 3)
    }

    @Test func bindingAnOptionalVariableSetsNilToo() {
        let count = Var<Int?>(5)
        let tab = Tab()
        count.bind(to: \.badge, on: tab)

        count <- nil

        #expect(tab.badge == nil)
    }

    @Test func bindingToAnOptionalPropertyEndsWhenTheObjectDies() {
        let count = Var(1)
        var tab: Tab? = Tab()
        weak let weakTab = tab
        weak let weakObserver = tab.map { count.bind(to: \.badge, on: $0) }

        tab = nil
        count <- 2

        #expect(weakTab == nil)
        #expect(weakObserver == nil)
        #expect(observationCount(of: count) == 0)
    }

    @Test func stoppingTheReturnedObserverEndsABindingToAnOptionalProperty() {
        let count = Var(1)
        let tab = Tab()
        let binding = count.bind(to: \.badge, on: tab)

        binding.stopObserving()
        count <- 2

        #expect(tab.badge == 1)
    }
}
