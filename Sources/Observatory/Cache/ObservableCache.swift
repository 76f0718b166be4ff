/// An observable object that can tell its latest message on demand.
///
/// Every ``Var`` is a cache (its latest message is an update whose `old` and
/// `new` are both the current value); `cache()` turns any observable into one;
/// and `map`, `new` and `unwrap(_:)` of a cache are caches too, since they
/// never drop a message. A custom observable conforms by saying what its latest
/// message is:
///
/// ```swift
/// class Model: Messenger<String>, ObservableCache {
///     var latestMessage: String { state }
///     var state = "initial state"
/// }
/// ```
///
/// Combined observations (``Observer/observe(_:_:receive:)-(_,_,(A.Message,B.Message)->Void)``)
/// pull the latest messages of the observables that did not send.
public protocol ObservableCache: ObservableObject {
    /// The last message sent, or one that describes the current state.
    var latestMessage: Message { get }
}

extension ObservableCache {
    /// Sends ``latestMessage`` to all observers, with this object as author.
    public func send() {
        send(latestMessage)
    }
}

extension ObservableCache {
    /// Calls `receive` with the first message that is not `nil`: at once if the
    /// latest message is one, otherwise as soon as the cache sends one.
    ///
    /// - Parameter receive: Called exactly once, with the unwrapped message.
    public func whenCached<Wrapped>(_ receive: @escaping (Wrapped) -> Void) where Message == Wrapped? {
        // Observe first, then look at the latest message: a message sent in
        // between is not missed, and the flag keeps the call single.
        let observer = FreeObserver()
        let once = OnceFlag()
        let deliver = { [observer] (message: Wrapped) in
            guard once.claim() else { return }
            observer.stopObserving()
            receive(message)
        }
        observer.observe(self) { (message: Message) in
            if let message { deliver(message) }
        }
        if let message = latestMessage { deliver(message) }
    }
}

/// SwiftObserver's earlier name for ``ObservableCache``.
public typealias BufferedObservable = ObservableCache
