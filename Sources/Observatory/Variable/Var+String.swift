// String conveniences: a `string` property, concatenation with `+`, and a
// variable of text that can be read as the text itself: printed, streamed
// into, and iterated as a collection of characters.

/// A value that stands for a string: a `String`, or a `String?` that counts
/// as empty while it is `nil`.
public protocol StringValue {
    /// The string, with `nil` read as empty.
    var string: String { get }

    /// The value that stands for a string.
    init(string: String)
}

extension String: StringValue {
    /// The string itself; setting it replaces the string, so that a plain
    /// string and a variable's text read alike: `text.string += Var("!").string`.
    public var string: String {
        get { self }
        set { self = newValue }
    }
    /// The string itself.
    public init(string: String) { self = string }
}

extension Optional: StringValue where Wrapped: StringValue {
    /// The wrapped string, or the empty string for `nil`.
    public var string: String { self?.string ?? "" }
    /// The string, wrapped.
    public init(string: String) { self = Wrapped(string: string) }
}

/// A ``Var`` of a string, or an optional one: operand types of `+`, at least
/// one of which must be a variable.
public protocol StringVariable: StringValue {}

extension Var: StringValue where Value: StringValue {
    /// A new variable holding a string.
    public convenience init(string: String) {
        self.init(Value(string: string))
    }
}

extension Var: StringVariable where Value: StringValue {}
extension Optional: StringVariable where Wrapped: StringVariable {}

extension Var where Value: StringValue {
    /// The value as a `String`, with `nil` read as empty; setting it sets the
    /// value.
    public var string: String {
        get { value.string }
        set { value = Value(string: newValue) }
    }
}

extension Var: Sequence, Collection, BidirectionalCollection where Value: StringValue {
    /// The elements of the text: characters.
    public typealias Element = Character
    /// Positions in the text.
    public typealias Index = String.Index
    /// Iterates the characters of the text as it was when iteration began.
    public typealias Iterator = String.Iterator

    /// An iterator over the characters of the current text.
    public func makeIterator() -> String.Iterator { string.makeIterator() }

    /// The position of the first character of the current text.
    public var startIndex: String.Index { string.startIndex }

    /// The position after the last character of the current text.
    public var endIndex: String.Index { string.endIndex }

    /// The character at a position of the current text.
    public subscript(position: String.Index) -> Character { string[position] }

    /// The position after `index` in the current text.
    public func index(after index: String.Index) -> String.Index { string.index(after: index) }

    /// The position before `index` in the current text.
    public func index(before index: String.Index) -> String.Index { string.index(before: index) }
}

extension Var: TextOutputStream where Value: StringValue {
    /// Appends text to the value, so that `print(..., to: &variable)` works.
    public func write(_ text: String) {
        string += text
    }
}

extension Var: CustomStringConvertible where Value: StringValue {
    /// The value's text.
    public var description: String { string }
}

extension Var: CustomDebugStringConvertible where Value: StringValue {
    /// The value's text, quoted.
    public var debugDescription: String { string.debugDescription }
}

/// Concatenates a variable's text and a string.
public func + <Left: StringVariable, Right: StringValue>(lhs: Left, rhs: Right) -> String {
    lhs.string + rhs.string
}

/// Concatenates a string and a variable's text.
public func + <Left: StringValue, Right: StringVariable>(lhs: Left, rhs: Right) -> String {
    lhs.string + rhs.string
}

/// Concatenates the texts of two variables.
public func + <Left: StringVariable, Right: StringVariable>(lhs: Left, rhs: Right) -> String {
    lhs.string + rhs.string
}
