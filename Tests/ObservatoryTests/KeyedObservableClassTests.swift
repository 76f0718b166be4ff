import Observatory
import Testing

/// The Flowduino seed's keyed example: observers of single keys of a
/// dictionary-like repository.
private protocol TestKeyedObservable: AnyObject {
    func onValueChanged(key: String, oldValue: String, newValue: String)
}

private final class TestKeyedObservableClass: KeyedObservableClass<String> {
    private var keyValues: [String: String] = ["A": "Hello", "B": "Foo", "C": "Ping"]

    func setValue(key: String, value: String) {
        withKeyedObservers(key: key) { (key, observer: TestKeyedObservable) in
            observer.onValueChanged(key: key, oldValue: keyValues[key] ?? "", newValue: value)
        }
        keyValues[key] = value
    }
}

private final class TestKeyedObserverClass: TestKeyedObservable {
    var keyValues: [String: String] = ["A": "Hello", "B": "Foo"]

    func onValueChanged(key: String, oldValue: String, newValue: String) {
        keyValues[key] = newValue
    }
}

@Suite struct KeyedObservableClassTests {
    @Test func observersOfAKeyHearOnlyThatKey() {
        let observable = TestKeyedObservableClass()
        let observer = TestKeyedObserverClass()
        observable.addKeyedObserver(key: "A", observer)

        observable.setValue(key: "A", value: "World")
        observable.setValue(key: "C", value: "Pong")

        #expect(observer.keyValues == ["A": "World", "B": "Foo"])
    }

    @Test func anObserverCanRegisterForSeveralKeysAndRemoveThem() {
        let observable = TestKeyedObservableClass()
        let observer = TestKeyedObserverClass()
        observable.addKeyedObserver(keys: Array(observer.keyValues.keys), observer)

        observable.setValue(key: "B", value: "Bar")
        observable.removeKeyedObserver(keys: ["A", "B"], observer)
        observable.setValue(key: "A", value: "ignored")

        #expect(observer.keyValues == ["A": "Hello", "B": "Bar"])
    }

    @Test func severalObserversCanRegisterForOneKey() {
        let observable = TestKeyedObservableClass()
        let first = TestKeyedObserverClass()
        let second = TestKeyedObserverClass()
        observable.addKeyedObserver(key: "C", [first, second])

        observable.setValue(key: "C", value: "Pong")

        #expect(first.keyValues["C"] == "Pong")
        #expect(second.keyValues["C"] == "Pong")
    }

    @Test func keyedObservablesTakePlainObserversToo() {
        let observable = TestKeyedObservableClass()
        let plain = TestKeyedObserverClass()
        observable.addObserver(plain)
        var reached = 0
        observable.withObservers { (_: TestKeyedObservable) in reached += 1 }
        observable.setValue(key: "A", value: "keyed only")

        #expect(reached == 1)
        #expect(plain.keyValues["A"] == "Hello")
    }
}
