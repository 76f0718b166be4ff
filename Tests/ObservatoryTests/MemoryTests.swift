import Observatory
import Testing

/// Cross-cutting memory checks: nothing of an ended observation stays alive,
/// and no transform, wrapper or one-shot observation forms a retain cycle.
@Suite struct MemoryTests {
    @Test func transformObjectDiesWhenReleasedAndEndsItsObservationOfTheOrigin() {
        let number = Var(0)
        var doubled: Map<Var<Int>, Int>? = number.map { $0.new * 2 }
        weak let weakDoubled = doubled
        #expect(observationCount(of: number) == 1)

        doubled = nil

        #expect(weakDoubled == nil)
        #expect(observationCount(of: number) == 0)
    }

    @Test func chainOfTransformObjectsDiesAsAWhole() {
        let messenger = Messenger<Int>()
        var chain: Unwrap<Map<Filter<Messenger<Int>>, Int?>, Int>? =
            messenger.filter { $0 > 0 }.map { Optional($0) }.unwrap()
        weak let weakChain = chain
        weak let weakMiddle = chain?.origin
        weak let weakFirst = chain?.origin.origin

        chain = nil

        #expect(weakChain == nil)
        #expect(weakMiddle == nil)
        #expect(weakFirst == nil)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func observedTransformDoesNotKeepItselfAlive() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        var transform: Map<Messenger<Int>, Int>? = messenger.map { $0 + 1 }
        weak let weakTransform = transform
        var captured: Token? = Token()
        weak let weakCaptured = captured
        if let transform {
            observer.observe(transform) { [captured] _ in _ = captured }
        }
        captured = nil

        transform = nil

        #expect(weakTransform == nil)
        #expect(weakCaptured == nil)
        #expect(registryCount(of: observer) == 0)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func transformClosureIsReleasedWithTheTransform() {
        let messenger = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        var transform: Filter<Messenger<Int>>? = messenger.filter { [captured] _ in captured != nil }
        weak let weakTransform = transform
        captured = nil
        #expect(weakCaptured != nil)
        #expect(observationCount(of: messenger) == 1)

        transform = nil

        #expect(weakTransform == nil)
        #expect(weakCaptured == nil)
    }

    @Test func originDyingReleasesTheTransformsObservers() {
        var number: Var<Int>? = Var(0)
        let observer = TestObserver()
        // The transform keeps its origin alive, as SwiftObserver's do; releasing
        // both must leave nothing behind.
        var newNumber: Map<Var<Int>, Int>? = number?.new()
        weak let weakNumber = number
        if let newNumber { observer.observe(newNumber) { _ in } }

        number = nil
        newNumber = nil

        #expect(weakNumber == nil)
        #expect(registryCount(of: observer) == 0)
    }

    @Test func weakWrapperFormsNoCycle() {
        var number: Var<Int>? = Var(1)
        var weakNumber: Weak<Var<Int>>? = number?.weak()
        weak let weakVariable = number
        weak let weakWrapper = weakNumber

        weakNumber = nil
        number = nil

        #expect(weakWrapper == nil)
        #expect(weakVariable == nil)
    }

    @Test func observeOnceFormsNoCycleAfterFiring() {
        let messenger = Messenger<Int>()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        weak let weakObserver = messenger.observedOnce { [captured] _ in _ = captured }
        captured = nil

        messenger.send(1)

        #expect(weakObserver == nil)
        #expect(weakCaptured == nil)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func whenFulfilledFormsNoCycleAfterFulfilment() {
        var promise: Promise<Int>? = Promise<Int>()
        weak let weakPromise = promise
        var captured: Token? = Token()
        weak let weakCaptured = captured
        promise?.whenFulfilled { [captured] _ in _ = captured }
        captured = nil

        promise?.fulfill(1)
        promise?.whenFulfilled { _ in }
        promise = nil

        #expect(weakCaptured == nil)
        #expect(weakPromise == nil)
    }

    @Test func composedPromisesAreReleasedAfterFulfilment() {
        var first: Promise<Int>? = Promise<Int>()
        weak let weakFirst = first
        weak let weakMapped = first?.map { $0 + 1 }.then { value in
            Promise { $0.fulfill(value) }
        }

        first?.fulfill(1)
        first = nil

        #expect(weakFirst == nil)
        #expect(weakMapped == nil)
    }

    @Test func cacheFormsNoCycle() {
        let messenger = Messenger<Int>()
        var cache: Cache<Messenger<Int>, Int>? = messenger.cache()
        weak let weakCache = cache
        messenger.send(1)

        cache = nil

        #expect(weakCache == nil)
        #expect(observationCount(of: messenger) == 0)
    }

    @Test func variableDiesWhileObservedAndReleasesHandlers() {
        var number: Var<Int>? = Var(0)
        weak let weakNumber = number
        let first = TestObserver()
        let second = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        if let number {
            first.observe(number) { [captured] _ in _ = captured }
            second.observe(number).new().map { $0 * 2 }.receive { [captured] _ in _ = captured }
        }
        captured = nil

        number = nil

        #expect(weakNumber == nil)
        #expect(weakCaptured == nil)
        #expect(registryCount(of: first) == 0)
        #expect(registryCount(of: second) == 0)
    }

    @Test func observerAndObservableReferencingEachOtherThroughHandlersAreFreedWhenUnreferenced() {
        final class Controller: Observer {
            let receiver = Receiver()
            let model = Var(0)
            var seen = 0
            init() {
                observe(model) { [unowned self] _ in seen += 1 }
            }
        }
        var controller: Controller? = Controller()
        weak let weakController = controller
        controller?.model <- 1
        #expect(controller?.seen == 1)

        controller = nil

        #expect(weakController == nil)
    }
}
