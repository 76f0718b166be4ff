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
    private struct Entry: @unchecked Sendable {
        // @unchecked: the reference is only stored, compared and handed out;
        // callers decide on which thread they use the observer.
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

    /// The live observers registered for a key (`nil`: for every message),
    /// in the order they were added.
    func observers(for key: Key?) -> [AnyObject] {
        entries.withLock { entries in entries.compactMap { $0.key == key ? $0.observer : nil } }
    }
}
