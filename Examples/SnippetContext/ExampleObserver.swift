import Observatory

/// An observer that the docs' fragments use as any observer: a dog, a chat window, a view.
public final class ExampleObserver: Observer, Sendable {
    /// The receiver that keeps its observations alive.
    public let receiver = Receiver()

    /// Creates an observer.
    public init() {}
}
