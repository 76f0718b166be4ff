import ObservatoryWire

/// A consumer of a target's changes: a stream of ``ObservatoryClient/changes(of:slow:)``,
/// or a ``Presence`` that follows its members.
struct Watcher {
    let target: Target
    /// Takes each change of the target, on the I/O thread, in order; it must not block.
    let deliver: @Sendable (RemoteChange) -> Void
    /// Ends the consumer: the client closed, or stopped for good.
    let finish: @Sendable () -> Void
    /// What the server does with the target's events when the client falls behind.
    var slow: SlowPolicy = .coalesce

    /// A watcher that hands each change to `deliver`, and calls `finish` at the end.
    init(
        target: Target, slow: SlowPolicy = .coalesce, deliver: @escaping @Sendable (RemoteChange) -> Void,
        finish: @escaping @Sendable () -> Void = {}
    ) {
        self.target = target
        self.slow = slow
        self.deliver = deliver
        self.finish = finish
    }

    /// A watcher that yields each change to a stream's `continuation`, and finishes it at the end.
    init(target: Target, continuation: AsyncStream<RemoteChange>.Continuation, slow: SlowPolicy = .coalesce) {
        self.init(
            target: target, slow: slow, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
    }

    /// Whether a change of `key` belongs in this watcher's stream.
    func matches(_ key: String) -> Bool {
        switch target {
        case .key(let watched): key.utf8.elementsEqual(watched.utf8)
        case .prefix(let prefix): key.utf8.starts(with: prefix.utf8)
        }
    }
}
