// The `int`, `float`, `double` and `string` properties on plain values and
// their optionals, as variables have them, so that code reads alike whether it
// holds a value or a variable:
//
// ```swift
// var product = 2
// product.int *= Var(7).int   // product == 14
// var name: String? = nil
// name.string += "sky"        // name == "sky"
// ```
//
// Reading treats `nil` as zero or the empty string; setting stores the new value.

extension Int {
    /// The number itself; setting it replaces the number.
    public var int: Int {
        get { self }
        set { self = newValue }
    }
}

extension Float {
    /// The number itself; setting it replaces the number.
    public var float: Float {
        get { self }
        set { self = newValue }
    }
}

extension Double {
    /// The number itself; setting it replaces the number.
    public var double: Double {
        get { self }
        set { self = newValue }
    }
}

extension Optional where Wrapped == Int {
    /// The number, with `nil` read as zero; setting it stores the number.
    public var int: Int {
        get { self ?? 0 }
        set { self = newValue }
    }
}

extension Optional where Wrapped == Float {
    /// The number, with `nil` read as zero; setting it stores the number.
    public var float: Float {
        get { self ?? 0 }
        set { self = newValue }
    }
}

extension Optional where Wrapped == Double {
    /// The number, with `nil` read as zero; setting it stores the number.
    public var double: Double {
        get { self ?? 0 }
        set { self = newValue }
    }
}

extension Optional where Wrapped == String {
    /// The string, with `nil` read as empty; setting it stores the string.
    public var string: String {
        get { self ?? "" }
        set { self = newValue }
    }
}
