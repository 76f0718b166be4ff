/// An observer of its own, for observations that belong to no particular
/// object.
///
/// `FreeObserver.shared` does the free observations of the free function `observe(_:receive:)`,
/// of ad hoc transform chains started with `observe(_:)` and of
/// `ObservableObject.observed(_:)`; stop them through it. A
/// `FreeObserver` you create yourself keeps its observations for as long as you
/// keep it, like a token or cancellable in other libraries.
public final class FreeObserver: Observer, Sendable {
    /// The observer of free observations that nothing else owns.
    public static let shared = FreeObserver()

    /// Keeps this observer's observations alive.
    public let receiver = Receiver()

    /// Creates an observer without observations.
    public init() {}

    /// Observes until the first message arrives, then stops.
    ///
    /// The observation keeps this observer alive until then, so the caller
    /// need not.
    func observeOnce<Observable: ObservableObject>(
        _ observable: Observable,
        receive: @escaping (Observable.Message, AnyAuthor) -> Void
    ) {
        // Weak: a queued message can still reach this handler on another
        // thread while the observable is being torn down.
        observe(observable) { [self, weak observable] message, author in
            if let observable { stopObserving(observable) }
            receive(message, author)
        }
    }
}

// MARK: - Free observation

/// Observes an object with ``FreeObserver/shared``.
///
/// ```swift
/// observe(Sky.shared) { color in
///     // marvel at the sky changing its color
/// }
/// ```
public func observe<Observable: ObservableObject>(
    _ observable: Observable,
    receive: @escaping (Observable.Message) -> Void
) {
    FreeObserver.shared.observe(observable, receive: receive)
}

/// Observes an object's messages and their authors with
/// ``FreeObserver/shared``.
public func observe<Observable: ObservableObject>(
    _ observable: Observable,
    receive: @escaping (Observable.Message, AnyAuthor) -> Void
) {
    FreeObserver.shared.observe(observable, receive: receive)
}

/// Starts a free observation whose messages pass through transforms first,
/// with ``FreeObserver/shared``, as ``Observer/observe(_:)`` does for an
/// observer of your own.
///
/// ```swift
/// observe(Sky.shared).filter { $0 == .blue }.receive { color in
///     // only blue skies get here
/// }
/// ```
///
/// The observation starts when the chain ends in a handler, and lives and
/// ends like every free observation: until the object dies or
/// `FreeObserver.shared.stopObserving(object)`.
@inlinable
public func observe<Observable: ObservableObject>(
    _ observable: Observable
) -> AdhocTransform<Observable.Message> {
    FreeObserver.shared.observe(observable)
}

/// Receives the next message of an object, once.
///
/// - Returns: The observer doing the observation. It lives until the message
///   arrives; keep it only to cancel the observation earlier.
@discardableResult
public func observeOnce<Observable: ObservableObject>(
    _ observable: Observable,
    receive: @escaping (Observable.Message) -> Void
) -> FreeObserver {
    let observer = FreeObserver()
    observer.observeOnce(observable) { message, _ in receive(message) }
    return observer
}

/// Receives the next message of an object and its author, once.
@discardableResult
public func observeOnce<Observable: ObservableObject>(
    _ observable: Observable,
    receive: @escaping (Observable.Message, AnyAuthor) -> Void
) -> FreeObserver {
    let observer = FreeObserver()
    observer.observeOnce(observable, receive: receive)
    return observer
}

extension ObservableObject {
    /// Observes this object with ``FreeObserver/shared``.
    public func observed(_ receive: @escaping (Message) -> Void) {
        FreeObserver.shared.observe(self, receive: receive)
    }

    /// Observes this object's messages and their authors with
    /// ``FreeObserver/shared``.
    public func observed(_ receive: @escaping (Message, AnyAuthor) -> Void) {
        FreeObserver.shared.observe(self, receive: receive)
    }

    /// Receives this object's next message, once.
    @discardableResult
    public func observedOnce(_ receive: @escaping (Message) -> Void) -> FreeObserver {
        observeOnce(self, receive: receive)
    }

    /// Receives this object's next message and its author, once.
    @discardableResult
    public func observedOnce(_ receive: @escaping (Message, AnyAuthor) -> Void) -> FreeObserver {
        observeOnce(self, receive: receive)
    }
}
