infix operator <- : AssignmentPrecedence

/// Sets a variable's value: `number <- 42` reads as "number receives 42".
///
/// - Parameters:
///   - variable: The variable to set.
///   - value: Its new value; an equal value sends no update.
@inlinable
public func <- <Value>(variable: Var<Value>, value: Value) {
    variable.value = value
}
