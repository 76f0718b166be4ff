/// An optional, seen as a protocol: lets an extension apply to observables of
/// optional messages, and so take precedence over the general one.
public protocol OptionalMessage {
    /// The type of the value an optional may hold.
    associatedtype Wrapped

    /// The optional itself.
    var optional: Wrapped? { get }
}

extension Optional: OptionalMessage {
    /// The optional itself.
    public var optional: Wrapped? { self }
}
