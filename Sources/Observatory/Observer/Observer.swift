/// An object that observes other objects.
///
/// Any class becomes an observer by owning a ``Receiver``:
///
/// ```swift
/// final class Dog: Observer {
///     let receiver = Receiver()
/// }
///
/// dog.observe(Sky.shared) { color in
///     // marvel at the sky changing its color
/// }
/// ```
///
/// A handler is called only while the observer's receiver is alive. When the
/// observer, or the observed object, dies, the observation ends by itself.
/// An observer may observe the same object several times; every handler is
/// called.
public protocol Observer: AnyObject {
    /// Keeps this observer's observations alive; hold it strongly.
    var receiver: Receiver { get }
}

extension Observer {
    /// Starts receiving the messages of an observable object.
    ///
    /// - Parameters:
    ///   - observable: The object to observe.
    ///   - receive: Called with every message, in send order.
    @inlinable
    public func observe<Observable: ObservableObject>(
        _ observable: Observable,
        receive: @escaping (Observable.Message) -> Void
    ) {
        observable.messenger.core.add(receive, for: receiver)
    }

    /// Starts receiving the messages of an observable object together with
    /// their authors.
    ///
    /// - Parameters:
    ///   - observable: The object to observe.
    ///   - receive: Called with every message and its author, in send order.
    @inlinable
    public func observe<Observable: ObservableObject>(
        _ observable: Observable,
        receive: @escaping (Observable.Message, AnyAuthor) -> Void
    ) {
        observable.messenger.core.add(receive, for: receiver)
    }

    /// Starts an observation whose messages pass through transforms first.
    ///
    /// ```swift
    /// observer.observe(title).new().unwrap("Untitled").map({ $0.count }) { length in
    ///     // the new title's length
    /// }
    /// ```
    ///
    /// The observation starts when the chain ends in a handler.
    @inlinable
    public func observe<Observable: ObservableObject>(
        _ observable: Observable
    ) -> AdhocTransform<Observable.Message> {
        AdhocTransform { [receiver] handler in
            observable.messenger.core.add(handler, for: receiver)
        }
    }

    /// Tells whether this observer observes an object.
    @inlinable
    public func isObserving(_ observable: some ObservableObject) -> Bool {
        observable.messenger.core.hasObservations(of: receiver)
    }

    /// Ends this observer's observations of one object.
    @inlinable
    public func stopObserving(_ observable: some ObservableObject) {
        observable.messenger.core.removeObservations(of: receiver.link)
    }

    /// Ends all of this observer's observations.
    public func stopObserving() {
        receiver.link.stopAll()
    }
}
