/// The simplest observable object: anyone can send messages through it.
///
/// A messenger is the mediator of the messenger (notifier) pattern, and the
/// engine of every other observable: it keeps the observations and delivers
/// messages in send order.
///
/// ```swift
/// let textMessenger = Messenger<String>()
/// observer.observe(textMessenger) { text in print(text) }
/// textMessenger.send("my message")
/// ```
///
/// Subclass it to make a custom observable that *is* its own messenger:
///
/// ```swift
/// class Model: Messenger<String>, ObservableCache {
///     var latestMessage: String { "current state" }
/// }
/// ```
///
/// ## Threads
/// A messenger may be sent to and observed from any thread. It never runs two
/// handlers at the same time, and it delivers messages in exactly the order in
/// which `send` was called. A handler runs on the thread that sent the message,
/// or, when another thread is already delivering this messenger's messages, on
/// that thread, after the messages sent before it: a send never blocks waiting
/// for a running handler, so it cannot deadlock with one.
///
/// A messenger is `Sendable` when its messages are. A subclass that adds mutable
/// state of its own must protect that state and restate the conformance.
open class Messenger<Message>: ObservableObject {
    /// The observations and the delivery queue, shared with the receivers of
    /// the observers so that either side can end an observation.
    @usableFromInline
    let core = MessengerCore<Message>()

    /// Creates a messenger without observers.
    public init() {}

    deinit {
        core.close()
    }

    /// The messenger itself: a messenger is its own ``ObservableObject``.
    @inlinable
    public final var messenger: Messenger<Message> { self }

    /// Whether anyone observes this messenger now.
    ///
    /// A sender whose message is costly to prepare can skip it when nobody
    /// would receive it. The answer can be stale the moment it returns if other
    /// threads start or end observations meanwhile; a sender that needs it exact
    /// guards both with a lock of its own.
    @inlinable
    public final var isObserved: Bool {
        core.observationCount > 0
    }
}

/// All mutable state of a messenger lives in its ``MessengerCore``, which guards
/// it with a lock.
extension Messenger: @unchecked Sendable where Message: Sendable {}
