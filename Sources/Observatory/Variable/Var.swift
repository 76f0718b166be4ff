import Observation

/// An observable value: sends an ``Update`` whenever its value changes.
///
/// ```swift
/// let number = Var(42)
/// observer.observe(number) { update in
///     print(update.new - update.old)
/// }
/// number <- 123               // or: number.value = 123
/// number.set(7, as: editor)   // `editor` is the update's author
/// ```
///
/// When `Value` is `Equatable`, setting the value it already has sends
/// nothing; otherwise every assignment counts as a change. ``send()`` sends an
/// update whose `old` and `new` both hold the current value.
///
/// `Variable` is another name for the same type.
///
/// ## Observation
/// A variable is also `Observable` in the sense of Swift's Observation
/// framework: reading ``value`` inside `withObservationTracking`, or in the body
/// of a SwiftUI view, tracks it, and every change of the value (local, or from a
/// mirror's server) is told to the tracker. A set that no one tracks skips the
/// framework, so it costs what it cost before (see `ValueObservation`).
///
/// ## Threads
/// The value may be read and set from any thread. Setting it and queueing its
/// update happen atomically, so observers see the updates in the order in which
/// the changes were made, each `old` being the previous update's `new`.
public final class Var<Value>: ObservableCache, Observation.Observable {
    /// The current value and the variable's part in the Observation framework.
    @usableFromInline
    struct Storage {
        @usableFromInline var value: Value
        /// `\.value`, made for this variable alone at the first read of
        /// ``Var/value`` (until then nothing can track it); see
        /// `ValueObservation` for why.
        @usableFromInline var keyPath: KeyPath<Var<Value>, Value>?
        /// Made with `keyPath`.
        @usableFromInline var observation: ValueObservation?

        /// Whether some tracking may hold the key path, so that a change must be
        /// told to the registrar. `mutating` only to ask about uniqueness.
        @inlinable
        mutating func mayBeTracked() -> Bool {
            keyPath != nil && !isKnownUniquelyReferenced(&keyPath)
        }

        @usableFromInline
        init(value: Value) {
            self.value = value
        }
    }

    /// Keeps the observations and delivers the updates. Its lock also guards
    /// `storage`.
    public let messenger = Messenger<Update<Value>>()
    /// The current value and its observation; read and written only under
    /// `messenger.core`'s lock. Behind a pointer, so that these accesses skip
    /// Swift's dynamic exclusivity checks.
    @usableFromInline let storage: UnsafeMutablePointer<Storage>
    /// Tells whether two values are equal, when `Value` is `Equatable`.
    @usableFromInline let isEqual: ((Value, Value) -> Bool)?

    /// Creates a variable with an initial value.
    ///
    /// - Parameter value: The initial value. Creating a variable sends nothing.
    public convenience init(_ value: Value) {
        self.init(value: value, isEqual: equalityFunction(for: Value.self))
    }

    /// Creates a variable of an `Equatable` value, so that setting an equal
    /// value sends no update.
    ///
    /// Inlinable, so that the comparison is made where `Value` is known: a
    /// `Var<Int>` then compares two integers in place of calling `==` through
    /// the `Equatable` witness of an unspecialized closure, whose context every
    /// set retained and released.
    @inlinable
    public convenience init(_ value: Value) where Value: Equatable {
        self.init(value: value, isEqual: { $0 == $1 })
    }

    /// Creates a variable with an initial value and the comparison that tells
    /// whether a set changes it (`nil`: every set does).
    @usableFromInline
    init(value: Value, isEqual: ((Value, Value) -> Bool)?) {
        storage = Self.allocateStorage(for: value)
        self.isEqual = isEqual
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    private static func allocateStorage(for value: Value) -> UnsafeMutablePointer<Storage> {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(to: Storage(value: value))
        return storage
    }

    /// The current value. Setting a different one sends an ``Update`` whose
    /// author is this variable.
    ///
    /// Reading it inside `withObservationTracking` (or a SwiftUI view's body)
    /// tracks the variable.
    @inlinable
    public var value: Value {
        get {
            let (value, keyPath, observation) = messenger.core.locked {
                storage.pointee.observation == nil
                    ? startObservation()
                    : (storage.pointee.value, storage.pointee.keyPath, storage.pointee.observation)
            }
            // Outside the lock: the registrar may run code of the tracker.
            if let keyPath, let observation {
                observation.registrar.access(self, keyPath: keyPath)
            }
            return value
        }
        set { set(newValue, as: self) }
    }

    /// Makes the variable's observation at its first read and returns what the
    /// read needs. Must be called with the lock held.
    @usableFromInline
    func startObservation() -> (Value, KeyPath<Var<Value>, Value>?, ValueObservation?) {
        let keyPath = Self.makeValueKeyPath()
        let observation = ValueObservation()
        storage.pointee.keyPath = keyPath
        storage.pointee.observation = observation
        return (storage.pointee.value, keyPath, observation)
    }

    /// A new `\.value` key path object; not inlined, so that it is made from the
    /// generic pattern and never shared with another variable.
    @inline(never)
    private static func makeValueKeyPath() -> KeyPath<Var<Value>, Value> {
        \Var<Value>.value
    }

    /// Sets the value on behalf of an author, who becomes the author of the
    /// resulting update.
    ///
    /// - Parameters:
    ///   - value: The new value. An equal value sends nothing.
    ///   - author: The object that made the change, for observers that filter
    ///     by author.
    @inlinable
    public func set(_ value: Value, as author: AnyAuthor) {
        var isTracked = false
        messenger.core.send(from: author) {
            let old = storage.pointee.value
            if let isEqual, isEqual(old, value) { return nil }
            if storage.pointee.mayBeTracked() {
                isTracked = true
                return nil
            }
            storage.pointee.value = value
            return Update(old, value)
        }
        if isTracked { setTracked(value, as: author) }
    }

    /// Sets the value of a variable that may be tracked: the registrar hears
    /// of the change before and after it, outside the lock.
    @usableFromInline
    func setTracked(_ value: Value, as author: AnyAuthor) {
        let (keyPath, observation) = messenger.core.locked { (storage.pointee.keyPath, storage.pointee.observation) }
        if let keyPath, let observation { observation.registrar.willSet(self, keyPath: keyPath) }
        messenger.core.send(from: author) {
            let old = storage.pointee.value
            if let isEqual, isEqual(old, value) { return nil }
            storage.pointee.value = value
            return Update(old, value)
        }
        if let keyPath, let observation { observation.registrar.didSet(self, keyPath: keyPath) }
    }

    /// An update whose `old` and `new` both hold the current value.
    public var latestMessage: Update<Value> {
        let current = messenger.core.locked { storage.pointee.value }
        return Update(current, current)
    }

    /// Sends an update whose `old` and `new` both hold the current value, to
    /// let observers pull the current state.
    public func send() {
        messenger.core.send(from: self) { Update(storage.pointee.value, storage.pointee.value) }
    }
}

/// Another name for ``Var``.
public typealias Variable<Value> = Var<Value>

/// The variable's value lives under its messenger's lock.
extension Var: @unchecked Sendable where Value: Sendable {}

extension Var {
    /// Creates a variable whose value is `nil`.
    public convenience init() where Value: ExpressibleByNilLiteral {
        self.init(nil)
    }

    /// Creates a variable whose value is `0`.
    public convenience init() where Value: ExpressibleByIntegerLiteral & Equatable {
        self.init(0)
    }

    /// Creates a variable whose value is the empty string.
    public convenience init() where Value: ExpressibleByStringLiteral & Equatable {
        self.init("")
    }

    /// Creates a variable whose value is `false`.
    public convenience init() where Value: ExpressibleByBooleanLiteral & Equatable {
        self.init(false)
    }

    /// Creates a variable whose value is an empty collection.
    public convenience init() where Value: ExpressibleByArrayLiteral & Equatable {
        self.init([])
    }
}

extension Var: Equatable where Value: Equatable {
    /// Variables are equal when their values are.
    public static func == (lhs: Var<Value>, rhs: Var<Value>) -> Bool {
        lhs.value == rhs.value
    }
}

extension Var: Comparable where Value: Comparable {
    /// Variables compare as their values do.
    public static func < (lhs: Var<Value>, rhs: Var<Value>) -> Bool {
        lhs.value < rhs.value
    }
}

/// Equality for a value type known only at run time to be `Equatable`, so
/// that a `Var` created in generic code still sends updates only on a change.
func equalityFunction<Value>(for type: Value.Type) -> ((Value, Value) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return equatable.equality(as: type)
}

extension Equatable {
    /// `==` for values of a type that is `Self`, seen through a generic
    /// parameter.
    fileprivate static func equality<Value>(as type: Value.Type) -> (Value, Value) -> Bool {
        { lhs, rhs in
            guard let lhs = lhs as? Self, let rhs = rhs as? Self else { return false }
            return lhs == rhs
        }
    }
}
