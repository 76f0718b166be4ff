/// A base class that calls its observers through a protocol of their own, as
/// in the Flowduino seed: register any object, then reach every registered
/// object that conforms to the protocol a change concerns.
///
/// ```swift
/// protocol ThermostatObserver: AnyObject {
///     func temperatureChanged(from old: Double, to new: Double)
/// }
///
/// final class Thermostat: ObservableClass {
///     var temperature = 20.0 {
///         didSet {
///             withObservers { (observer: ThermostatObserver) in
///                 observer.temperatureChanged(from: oldValue, to: temperature)
///             }
///         }
///     }
/// }
///
/// thermostat.addObserver(display)
/// ```
///
/// Observers are held weakly. Registering, removing and calling are safe from
/// any thread, and registering or removing while observers are being called
/// neither blocks nor disturbs the call in progress.
///
/// For objects that observe objects, prefer ``Observer`` and
/// ``ObservableObject``; this pattern suits callbacks with several methods.
open class ObservableClass {
    /// The registered observers; without keys, each is for every message.
    let observerList = ObserverList<Never>()

    /// Creates an observable without observers.
    public init() {}

    /// Registers an observer; registering it again changes nothing.
    public func addObserver(_ observer: AnyObject) {
        observerList.add(observer, for: nil)
    }

    /// Registers several observers.
    public func addObserver(_ observers: [AnyObject]) {
        for observer in observers { addObserver(observer) }
    }

    /// Removes an observer.
    public func removeObserver(_ observer: AnyObject) {
        observerList.remove(observer, for: nil)
    }

    /// Removes several observers.
    public func removeObserver(_ observers: [AnyObject]) {
        for observer in observers { removeObserver(observer) }
    }

    /// Calls `body` with every registered observer that conforms to
    /// `Conforming`, in the order they were added; the others are skipped.
    ///
    /// - Parameter body: Called once per conforming observer, on the calling
    ///   thread.
    public func withObservers<Conforming>(_ body: (Conforming) -> Void) {
        observerList.forEach(for: nil, body)
    }
}

/// An ``ObservableClass`` that may be shared across threads: `Sendable`.
///
/// Every observable class is thread-safe inside (its registrations live under
/// a lock); this variant also says so to the compiler, so that it can be used
/// from concurrent code. A subclass with mutable state of its own must guard
/// that state, and Swift asks it to restate the conformance.
open class ObservableThreadSafeClass: ObservableClass, @unchecked Sendable {}
