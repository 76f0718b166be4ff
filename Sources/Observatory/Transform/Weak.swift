import ObservatoryLocking

/// Holds an observable object weakly and stands in for it: observers of the
/// `Weak` receive the object's messages while it lives.
///
/// ```swift
/// let number = Var(12)
/// let weakNumber = number.weak()       // or: Weak(number)
/// observer.observe(weakNumber) { update in ... }
/// var weakNumbers = [Weak<Var<Int>>]()
/// weakNumbers.append(weakNumber)
/// ```
public final class Weak<Origin: ObservableObject>: ObservableObject, Observer {
    /// Delivers the origin's messages.
    public let messenger = Messenger<Origin.Message>()
    /// Holds the observation of the origin.
    public let receiver = Receiver()

    private let lock = Lock()
    private weak var weakOrigin: Origin?

    /// Wraps an observable object without keeping it alive.
    public init(_ observable: Origin) {
        weakOrigin = observable
        observe(observable) { [messenger] message, author in
            messenger.send(message, from: author)
        }
    }

    /// The wrapped object, or `nil` once it has died.
    public var origin: Origin? {
        lock.locked { weakOrigin }
    }

    /// The wrapped object, or `nil` once it has died; the same as ``origin``.
    public var observable: Origin? {
        origin
    }
}

extension Weak: @unchecked Sendable where Origin: Sendable, Origin.Message: Sendable {}
