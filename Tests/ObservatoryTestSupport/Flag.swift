import Observatory

/// A thread-safe flag that tests raise from any thread, such as an observer's handler.
public final class Flag: Sendable {
    private let raised = Locked(false)

    /// A flag not raised yet.
    public init() {}

    /// Raises the flag.
    public func raise() { raised.withLock { $0 = true } }

    /// Whether the flag was raised.
    public var isRaised: Bool { raised.withLock { $0 } }
}
