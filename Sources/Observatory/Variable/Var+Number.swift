// Number conveniences: `int`, `float` and `double` properties, and arithmetic
// between variables of numbers and numbers.
//
// ```swift
// let count = Var<Int?>()     // count.value == nil
// print(count.int)            // 0
// count.int += 5              // count.value == 5
// count <- Var(1) + 2         // count.value == 3
// ```

/// A ``Var`` of a number, or an optional one: the operand types of the
/// arithmetic operators, at least one of which must be a variable.
public protocol NumberVariable: NumberValue {}

extension Var: NumberValue where Value: NumberValue {
    /// The value's number, with `nil` read as zero.
    public var number: Value.Number { value.number }

    /// A new variable holding a number.
    public convenience init(number: Value.Number) {
        self.init(Value(number: number))
    }
}

extension Var: NumberVariable where Value: NumberValue {}
extension Optional: NumberVariable where Wrapped: NumberVariable {}

extension NumberVariable where Number == Int {
    /// The value as an `Int`, with `nil` read as zero.
    public var int: Int { number }
}

extension NumberVariable where Number == Float {
    /// The value as a `Float`, with `nil` read as zero.
    public var float: Float { number }
}

extension NumberVariable where Number == Double {
    /// The value as a `Double`, with `nil` read as zero.
    public var double: Double { number }
}

extension Var where Value: NumberValue, Value.Number == Int {
    /// The value as an `Int`, with `nil` read as zero; setting it sets the
    /// value.
    public var int: Int {
        get { number }
        set { value = Value(number: newValue) }
    }
}

extension Var where Value: NumberValue, Value.Number == Float {
    /// The value as a `Float`, with `nil` read as zero; setting it sets the
    /// value.
    public var float: Float {
        get { number }
        set { value = Value(number: newValue) }
    }
}

extension Var where Value: NumberValue, Value.Number == Double {
    /// The value as a `Double`, with `nil` read as zero; setting it sets the
    /// value.
    public var double: Double {
        get { number }
        set { value = Value(number: newValue) }
    }
}

// MARK: - Operators

/// Adds the numbers of a variable and a number, or of two variables.
public func + <Left: NumberVariable, Right: NumberValue>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number + rhs.number }

/// Adds the numbers of a number and a variable.
public func + <Left: NumberValue, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number + rhs.number }

/// Adds the numbers of two variables.
public func + <Left: NumberVariable, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number + rhs.number }

/// Subtracts a number from a variable's number.
public func - <Left: NumberVariable, Right: NumberValue>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number - rhs.number }

/// Subtracts a variable's number from a number.
public func - <Left: NumberValue, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number - rhs.number }

/// Subtracts one variable's number from another's.
public func - <Left: NumberVariable, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number - rhs.number }

/// Multiplies a variable's number by a number.
public func * <Left: NumberVariable, Right: NumberValue>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number * rhs.number }

/// Multiplies a number by a variable's number.
public func * <Left: NumberValue, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number * rhs.number }

/// Multiplies the numbers of two variables.
public func * <Left: NumberVariable, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number * rhs.number }

/// Divides a variable's number by a number.
public func / <Left: NumberVariable, Right: NumberValue>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number / rhs.number }

/// Divides a number by a variable's number.
public func / <Left: NumberValue, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number / rhs.number }

/// Divides one variable's number by another's.
public func / <Left: NumberVariable, Right: NumberVariable>(lhs: Left, rhs: Right) -> Left.Number
where Left.Number == Right.Number { lhs.number / rhs.number }
