/// The message of a ``Var``: its value before and after a change.
///
/// `old` and `new` are equal in the update that ``Var/send()`` sends on
/// request.
public struct Update<Value> {
    /// The value before the change.
    public let old: Value
    /// The value after the change.
    public let new: Value

    /// Creates an update from the value before and the value after a change.
    public init(_ old: Value, _ new: Value) {
        self.old = old
        self.new = new
    }
}

extension Update: Equatable where Value: Equatable {}
extension Update: Hashable where Value: Hashable {}
extension Update: Sendable where Value: Sendable {}
extension Update: Codable where Value: Codable {}

extension Update: CustomStringConvertible {
    /// `old → new`, for logs and test failures.
    public var description: String { "\(old) → \(new)" }
}
