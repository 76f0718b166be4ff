import Dispatch
import Observatory
import Testing

/// The Flowduino seed's example: an observable that calls its observers
/// through a protocol.
private protocol DummyObservable: AnyObject {
    func onFooChanged(oldValue: String, newValue: String)
}

private protocol UnrelatedObservable: AnyObject {
    func onSomethingElse()
}

private final class Dummy: ObservableClass {
    private var storedFoo = "Hello"

    var foo: String {
        get { storedFoo }
        set {
            withObservers { (observer: DummyObservable) in
                observer.onFooChanged(oldValue: storedFoo, newValue: newValue)
            }
            storedFoo = newValue
        }
    }
}

private final class DummyObserver: DummyObservable, @unchecked Sendable {
    // @unchecked: only the hammering test touches it from several threads, and
    // then only through `changes`, which is locked.
    let changes = Locked<[String]>([])

    func onFooChanged(oldValue: String, newValue: String) {
        changes.withLock { $0.append("\(oldValue) → \(newValue)") }
    }
}

private final class OtherObserver: UnrelatedObservable {
    var calls = 0
    func onSomethingElse() { calls += 1 }
}

@Suite struct ObservableClassTests {
    @Test func registeredObserversAreCalledThroughTheirProtocol() {
        let observable = Dummy()
        let observer = DummyObserver()
        observable.addObserver(observer)

        observable.foo = "Test 1"

        #expect(observer.changes.value == ["Hello → Test 1"])
    }

    @Test func observersNotConformingToTheProtocolAreSkipped() {
        let observable = Dummy()
        let other = OtherObserver()
        let observer = DummyObserver()
        observable.addObserver([other, observer])

        observable.foo = "x"

        #expect(other.calls == 0)
        #expect(observer.changes.value == ["Hello → x"])
    }

    @Test func addingTwiceRegistersOnceAndRemovingEnds() {
        let observable = Dummy()
        let observer = DummyObserver()
        observable.addObserver(observer)
        observable.addObserver(observer)
        observable.foo = "once"
        observable.removeObserver(observer)
        observable.foo = "never"

        #expect(observer.changes.value == ["Hello → once"])
    }

    @Test func observersAreHeldWeakly() {
        let observable = Dummy()
        weak var released: DummyObserver?
        do {
            let observer = DummyObserver()
            released = observer
            observable.addObserver(observer)
        }
        #expect(released == nil)
        observable.foo = "nobody listens"
    }

    @Test func observersMayBeAddedWhileObserversAreCalled() {
        final class Recruiter: DummyObservable {
            let observable: Dummy
            let recruit = DummyObserver()
            init(observable: Dummy) { self.observable = observable }
            func onFooChanged(oldValue: String, newValue: String) {
                observable.addObserver(recruit)
            }
        }
        let observable = Dummy()
        let recruiter = Recruiter(observable: observable)
        observable.addObserver(recruiter)

        observable.foo = "first" // the recruit joins during this call
        observable.foo = "second"

        #expect(recruiter.recruit.changes.value == ["first → second"])
    }

    @Test func registeringAndCallingFromManyThreadsLosesNothing() {
        let observable = ObservableThreadSafeClass()
        let observers = (0..<64).map { _ in DummyObserver() }
        DispatchQueue.concurrentPerform(iterations: observers.count) { index in
            observable.addObserver(observers[index])
            observable.withObservers { (observer: DummyObservable) in
                observer.onFooChanged(oldValue: "", newValue: "\(index)")
            }
        }
        var total = 0
        observable.withObservers { (_: DummyObservable) in total += 1 }
        #expect(total == observers.count)
        #expect(observers.allSatisfy { !$0.changes.value.isEmpty })
    }
}
