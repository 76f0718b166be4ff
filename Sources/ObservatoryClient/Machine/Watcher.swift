import ObservatoryWire

/// A consumer of ``ObservatoryClient/changes(of:slow:)``: its target and its stream.
struct Watcher {
    let target: Target
    let continuation: AsyncStream<RemoteChange>.Continuation
    /// What the server does with the target's events when the client falls behind.
    var slow: SlowPolicy = .coalesce

    /// Whether a change of `key` belongs in this watcher's stream.
    func matches(_ key: String) -> Bool {
        switch target {
        case .key(let watched): key.utf8.elementsEqual(watched.utf8)
        case .prefix(let prefix): key.utf8.starts(with: prefix.utf8)
        }
    }
}
