/// Observers registered by reference, optionally under keys, held weakly.
///
/// The engine of ``ObservableClass`` and ``KeyedObservableClass``: the
/// Flowduino seed's pattern, where an observable calls its observers through a
/// protocol they conform to. Observers are held weakly, so registering one
/// never keeps it alive; dead ones are skipped and swept out.
///
/// ## Threads
/// `entries` is guarded by its lock. Calls to observers run outside it, on a
/// copy, so observers may be added and removed from any thread, also while
/// observers are being called.
final class ObserverList<Key: Hashable>: Sendable {
    /// One registration: an observer, for every key or for one.
    private struct Entry {
        weak var observer: AnyObject?
        let key: Key?
    }

    private let entries = Locked<[Entry]>([])

    /// Registers an observer once for a key (`nil`: for every message).
    func add(_ observer: AnyObject, for key: Key?) {
        entries.withLock { entries in
            entries.removeAll { $0.observer == nil }
            guard !entries.contains(where: { $0.observer === observer && $0.key == key }) else { return }
            entries.append(Entry(observer: observer, key: key))
        }
    }

    /// Removes an observer's registration for a key (`nil`: the one for every
    /// message).
    func remove(_ observer: AnyObject, for key: Key?) {
        entries.withLock { entries in
            entries.removeAll { $0.observer == nil || ($0.observer === observer && $0.key == key) }
        }
    }

    /// Calls `body` with every live observer registered for a key (`nil`: for
    /// every message) that conforms to `Conforming`, in the order they were
    /// added. The calls run outside the lock, on a copy of the list.
    func forEach<Conforming>(for key: Key?, _ body: (Conforming) -> Void) {
        let observers = entries.withLock { entries in entries.compactMap { $0.key == key ? $0.observer : nil } }
        for observer in observers {
            if let conforming = observer as? Conforming { body(conforming) }
        }
    }
}
