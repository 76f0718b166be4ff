import ObservatoryLocking

/// A stand-alone transform: an observable object that observes another one,
/// its ``origin``, and sends what its step makes of the origin's messages.
///
/// Create transforms with the methods of ``ObservableObject`` (`map`,
/// `filter`, `unwrap`, `new`, `select`, `filterAuthor`, `from`, `notFrom`,
/// `distinct`) and chain them freely. Several observers can share one; keep it
/// alive as long as it should work. Authors pass through unchanged.
///
/// ## Threads
/// `origin` may be read and replaced from any thread; `lock` guards it.
public class Transform<Origin: ObservableObject, Output>: ObservableObject, Observer {
    /// Delivers the transformed messages.
    public let messenger = Messenger<Output>()
    /// Holds the observation of the origin.
    public let receiver = Receiver()

    private let lock = Lock()
    private var storedOrigin: Origin
    /// Turns an origin message and its author into an output, or `nil` to
    /// drop the message.
    private let step: (Origin.Message, AnyAuthor) -> Output?

    init(origin: Origin, step: @escaping (Origin.Message, AnyAuthor) -> Output?) {
        storedOrigin = origin
        self.step = step
        connect(to: origin)
    }

    /// The observable object this transform observes. Replacing it moves the
    /// observation to the new origin.
    public var origin: Origin {
        get { lock.locked { storedOrigin } }
        set {
            // One critical section, so that concurrent replacements leave
            // exactly the last origin observed. (Lock order: this lock, then
            // the origins' messenger cores.)
            lock.locked {
                stopObserving(storedOrigin)
                storedOrigin = newValue
                connect(to: newValue)
            }
        }
    }

    private func connect(to origin: Origin) {
        // The handler holds the messenger, not the transform, so that the
        // origin does not keep the transform alive.
        observe(origin) { [messenger, step] message, author in
            if let output = step(message, author) {
                messenger.send(output, from: author)
            }
        }
    }
}

/// The origin lives under the transform's lock; the step runs only inside the
/// origin's serialized delivery.
extension Transform: @unchecked Sendable where Origin: Sendable, Output: Sendable {}

/// A transform that turns every message into another, never dropping one.
///
/// Made by `map`, `new` and `unwrap(_:)`. When its origin is an
/// ``ObservableCache``, so is the map: its latest message is the origin's,
/// transformed.
public final class Map<Origin: ObservableObject, Output>: Transform<Origin, Output> {
    private let transform: (Origin.Message) -> Output

    init(origin: Origin, transform: @escaping (Origin.Message) -> Output) {
        self.transform = transform
        super.init(origin: origin) { message, _ in transform(message) }
    }
}

extension Map: ObservableCache where Origin: ObservableCache {
    /// The origin's latest message, transformed.
    public var latestMessage: Output {
        transform(origin.latestMessage)
    }
}

/// A transform that lets through only some messages, unchanged.
///
/// Made by `filter`, `filterAuthor`, `from`, `notFrom` and `distinct`, or
/// directly:
///
/// ```swift
/// let number = Var(1)
/// let positive = Filter(number) { $0.new > 0 }
/// ```
public final class Filter<Origin: ObservableObject>: Transform<Origin, Origin.Message> {
    /// Creates a filter of `origin`'s messages; the same as `origin.filter(isIncluded)`.
    ///
    /// - Parameters:
    ///   - origin: The observable object whose messages to filter.
    ///   - isIncluded: Whether to let a message through.
    public convenience init(_ origin: Origin, _ isIncluded: @escaping (Origin.Message) -> Bool) {
        self.init(origin: origin) { message, _ in isIncluded(message) ? message : nil }
    }
}

/// A transform that drops `nil` messages and unwraps the others.
///
/// Made by `unwrap()`.
public final class Unwrap<Origin: ObservableObject, Wrapped>: Transform<Origin, Wrapped>
where Origin.Message == Wrapped? {}

// Restated, as Swift asks of subclasses: the same lock-guarded state.
extension Map: @unchecked Sendable where Origin: Sendable, Output: Sendable {}
extension Filter: @unchecked Sendable where Origin: Sendable, Origin.Message: Sendable {}
extension Unwrap: @unchecked Sendable where Origin: Sendable, Wrapped: Sendable {}
