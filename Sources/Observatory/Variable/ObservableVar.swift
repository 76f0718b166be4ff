/// A property wrapper that stores a value in a ``Var``: the property reads and
/// writes the value directly, and `$property` is the variable to observe.
///
/// ```swift
/// @ObservableVar var number = 42
/// observer.observe($number) { update in print(update.new) }
/// number = 123
/// ```
///
/// Named so as not to clash with the `@Observable` macro of Swift's
/// `Observation` module; ``Observable`` is another name for it.
@propertyWrapper
public struct ObservableVar<Value> {
    /// The variable that holds the value; observe it.
    public let projectedValue: Var<Value>

    /// Wraps an initial value.
    public init(wrappedValue: Value) {
        projectedValue = Var(wrappedValue)
    }

    /// Wraps an initial `Equatable` value, so that setting an equal value
    /// sends no update.
    public init(wrappedValue: Value) where Value: Equatable {
        projectedValue = Var(wrappedValue)
    }

    /// The current value. Setting a different one sends an ``Update``.
    public var wrappedValue: Value {
        get { projectedValue.value }
        nonmutating set { projectedValue.value = newValue }
    }
}

extension ObservableVar: Sendable where Value: Sendable {}

/// The name SwiftObserver gives the property wrapper: `@Observable var x = 1`.
/// Prefer ``ObservableVar`` where the `Observation` module is imported too.
public typealias Observable<Value> = ObservableVar<Value>
