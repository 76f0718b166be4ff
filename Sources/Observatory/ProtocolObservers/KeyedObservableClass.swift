/// An ``ObservableClass`` whose observers can also register for single keys,
/// and are then called only for changes of those keys (the Flowduino seed's
/// keyed observers).
///
/// ```swift
/// protocol EntryObserver: AnyObject {
///     func valueChanged(key: String, from old: String, to new: String)
/// }
///
/// final class Repository: KeyedObservableClass<String> {
///     private var values: [String: String] = [:]
///
///     func setValue(_ value: String, for key: String) {
///         let old = values[key] ?? ""
///         values[key] = value
///         withKeyedObservers(key: key) { (key, observer: EntryObserver) in
///             observer.valueChanged(key: key, from: old, to: value)
///         }
///     }
/// }
///
/// repository.addKeyedObserver(key: "A", observer)   // only changes of "A"
/// ```
///
/// A keyed observable is also a plain one: `addObserver(_:)`
/// and ``ObservableClass/withObservers(_:)`` work on it as well. Finding the
/// observers of a key costs a scan of the registrations.
open class KeyedObservableClass<Key: Hashable>: ObservableClass {
    private let keyedObservers = ObserverList<Key>()

    /// Registers an observer for one key.
    public func addKeyedObserver(key: Key, _ observer: AnyObject) {
        keyedObservers.add(observer, for: key)
    }

    /// Registers an observer for several keys.
    public func addKeyedObserver(keys: [Key], _ observer: AnyObject) {
        for key in keys { addKeyedObserver(key: key, observer) }
    }

    /// Registers several observers for one key.
    public func addKeyedObserver(key: Key, _ observers: [AnyObject]) {
        for observer in observers { addKeyedObserver(key: key, observer) }
    }

    /// Registers several observers for several keys.
    public func addKeyedObserver(keys: [Key], _ observers: [AnyObject]) {
        for key in keys { addKeyedObserver(key: key, observers) }
    }

    /// Removes an observer's registration for one key.
    public func removeKeyedObserver(key: Key, _ observer: AnyObject) {
        keyedObservers.remove(observer, for: key)
    }

    /// Removes an observer's registrations for several keys.
    public func removeKeyedObserver(keys: [Key], _ observer: AnyObject) {
        for key in keys { removeKeyedObserver(key: key, observer) }
    }

    /// Removes several observers' registrations for one key.
    public func removeKeyedObserver(key: Key, _ observers: [AnyObject]) {
        for observer in observers { removeKeyedObserver(key: key, observer) }
    }

    /// Removes several observers' registrations for several keys.
    public func removeKeyedObserver(keys: [Key], _ observers: [AnyObject]) {
        for key in keys { removeKeyedObserver(key: key, observers) }
    }

    /// Calls `body` with the key and every observer registered for it that
    /// conforms to `Conforming`, in the order they registered.
    public func withKeyedObservers<Conforming>(key: Key, _ body: (Key, Conforming) -> Void) {
        keyedObservers.forEach(for: key) { (observer: Conforming) in body(key, observer) }
    }
}

/// A ``KeyedObservableClass`` that may be shared across threads: `Sendable`,
/// like ``ObservableThreadSafeClass``.
open class KeyedObservableThreadSafeClass<Key: Hashable & Sendable>: KeyedObservableClass<Key>, @unchecked Sendable {}
