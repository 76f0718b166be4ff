/// A value that arrives later, once: the result of an asynchronous call.
///
/// ```swift
/// func getID() -> Promise<Int> {
///     Promise { promise in
///         fetchID { id in promise.fulfill(id) }
///     }
/// }
///
/// getID().whenFulfilled { id in print(id) }
/// let id = await getID().value
/// ```
///
/// A promise is an observable object: fulfilling it sends
/// ``Event/wasFulfilled(_:)``. Because it may already be fulfilled, receive the
/// value with ``whenFulfilled(_:)`` rather than observing it directly. The code
/// that fulfills a promise keeps it alive until then, so callers need not hold
/// it; compose promises with ``then(_:)``, ``and(_:)`` and ``map(_:)``.
public final class Promise<Value>: ObservableObject {
    /// What a promise sends.
    public enum Event {
        /// The promise was fulfilled with this value.
        case wasFulfilled(Value)
    }

    /// Delivers ``Event/wasFulfilled(_:)``.
    public let messenger = Messenger<Event>()
    private let fulfilledValue = Locked<Value?>(nil)

    /// Creates a promise that is not yet fulfilled.
    public init() {}

    /// Creates a promise and hands it to `start`, which begins the work that
    /// will fulfill it.
    public convenience init(_ start: (Promise<Value>) -> Void) {
        self.init()
        start(self)
    }

    /// A promise that is fulfilled already, for a function that has its
    /// result at hand and must still return a promise.
    ///
    /// ```swift
    /// func load() -> Promise<Int> {
    ///     if let cached { return .fulfilled(cached) }
    ///     return Promise { promise in fetch { promise.fulfill($0) } }
    /// }
    /// ```
    ///
    /// Every ``whenFulfilled(_:)`` handler runs at once, in the caller's
    /// thread. The promise never sends ``Event/wasFulfilled(_:)``: nobody can
    /// observe it before it is fulfilled.
    public static func fulfilled(_ value: Value) -> Promise<Value> {
        let promise = Promise<Value>()
        promise.fulfilledValue.withLock { $0 = value }
        return promise
    }

    /// Fulfills the promise, if it is not fulfilled yet; later calls change
    /// nothing.
    public func fulfill(_ value: Value) {
        let isFirst = fulfilledValue.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            return true
        }
        if isFirst { send(.wasFulfilled(value)) }
    }

    /// The value, or `nil` while the promise is not fulfilled.
    public var fulfilled: Value? {
        fulfilledValue.value
    }

    /// Calls `receive` with the value: at once if the promise is fulfilled,
    /// otherwise when it is.
    ///
    /// - Returns: This promise, so that a chain can go on.
    @discardableResult
    public func whenFulfilled(_ receive: @escaping (Value) -> Void) -> Promise<Value> {
        // Registering under the value's lock orders this against `fulfill`:
        // either the value is there, or the observation hears it arrive.
        let value: Value? = fulfilledValue.withLock { stored in
            if let stored { return stored }
            FreeObserver().observeOnce(self) { event, _ in
                if case .wasFulfilled(let value) = event { receive(value) }
            }
            return nil
        }
        if let value { receive(value) }
        return self
    }

    /// Chains a promise that starts when this one is fulfilled, with its value.
    ///
    /// - Returns: A promise of the second promise's value.
    public func then<Next>(_ next: @escaping (Value) -> Promise<Next>) -> Promise<Next> {
        let result = Promise<Next>()
        whenFulfilled { value in
            next(value).whenFulfilled(result.fulfill)
        }
        return result
    }

    /// Starts another promise at once, alongside this one.
    ///
    /// - Returns: A promise of both values, fulfilled when both are.
    public func and<Other>(_ other: () -> Promise<Other>) -> Promise<(Value, Other)> {
        let result = Promise<(Value, Other)>()
        let second = other()
        whenFulfilled { value in
            second.whenFulfilled { otherValue in result.fulfill((value, otherValue)) }
        }
        return result
    }

    /// A promise of this promise's value, transformed.
    public func map<Output>(_ transform: @escaping (Value) -> Output) -> Promise<Output> {
        let result = Promise<Output>()
        whenFulfilled { result.fulfill(transform($0)) }
        return result
    }

    /// A promise of this promise's optional value, with `nil` replaced by a
    /// default.
    public func unwrap<Wrapped>(_ defaultValue: Wrapped) -> Promise<Wrapped> where Value == Wrapped? {
        map { $0 ?? defaultValue }
    }

    /// A promise of the new value of this promise's ``Update``.
    public func new<Updated>() -> Promise<Updated> where Value == Update<Updated> {
        map { $0.new }
    }
}

extension Promise where Value: Sendable {
    /// Waits for the value.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                whenFulfilled { continuation.resume(returning: $0) }
            }
        }
    }
}

/// The value lives under a lock; messages go through the messenger.
extension Promise: @unchecked Sendable where Value: Sendable {}
extension Promise.Event: Sendable where Value: Sendable {}

/// Returns the promise that `makePromise` returns: a context that makes
/// promise chains read well.
///
/// ```swift
/// promise {
///     getInt()
/// }.then {
///     getString(from: $0)
/// }.whenFulfilled {
///     print($0)
/// }
/// ```
public func promise<Value>(_ makePromise: () -> Promise<Value>) -> Promise<Value> {
    makePromise()
}
