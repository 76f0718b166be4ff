/// A transform that remembers the last message of its origin, so that it can
/// be pulled at any time as ``latestMessage``.
///
/// Made by `cache()`. Its messages are optional, `nil` until the origin first
/// sends, but never doubly optional: the cache of an observable of `Int?`
/// sends `Int?`.
public final class Cache<Origin: ObservableObject, Wrapped>: Transform<Origin, Wrapped?>, ObservableCache {
    private let latest: Locked<Wrapped?>

    init(origin: Origin, unwrap: @escaping (Origin.Message) -> Wrapped?) {
        let latest = Locked<Wrapped?>(nil)
        self.latest = latest
        super.init(origin: origin) { message, _ in
            let output = unwrap(message)
            latest.withLock { $0 = output }
            return output
        }
    }

    /// The last message the origin sent, or `nil` before it sent any.
    public var latestMessage: Wrapped? {
        latest.value
    }
}

extension Cache: @unchecked Sendable where Origin: Sendable, Wrapped: Sendable {}
