/// A value that stands for a number: a number itself, or an optional number
/// that counts as zero while it is `nil`.
///
/// The number conveniences of ``Var`` (`int`, `float`, `double` and the
/// arithmetic operators) work with every such value.
public protocol NumberValue {
    /// The number type: `Int`, `Float` or `Double`.
    associatedtype Number: ArithmeticNumber

    /// The number, with `nil` read as zero.
    var number: Number { get }

    /// The value that stands for a number.
    init(number: Number)
}

/// A number type that the arithmetic operators of ``Var`` work with.
public protocol ArithmeticNumber: Numeric {
    /// Divides one number by another.
    static func / (lhs: Self, rhs: Self) -> Self
}

extension Int: ArithmeticNumber {}
extension Float: ArithmeticNumber {}
extension Double: ArithmeticNumber {}

extension Int: NumberValue {
    /// The number itself.
    public var number: Int { self }
    /// The number itself.
    public init(number: Int) { self = number }
}

extension Float: NumberValue {
    /// The number itself.
    public var number: Float { self }
    /// The number itself.
    public init(number: Float) { self = number }
}

extension Double: NumberValue {
    /// The number itself.
    public var number: Double { self }
    /// The number itself.
    public init(number: Double) { self = number }
}

extension Optional: NumberValue where Wrapped: NumberValue {
    /// The wrapped number, or zero for `nil`.
    public var number: Wrapped.Number { self?.number ?? .zero }
    /// The number, wrapped.
    public init(number: Wrapped.Number) { self = Wrapped(number: number) }
}
