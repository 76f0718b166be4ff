/// A change of a named thing, which docs/core.md's keyed messenger routes by its key.
public struct Change: Sendable {
    /// What changed, for example `kitchen.light`.
    public let key: String
    /// Its new value.
    public let value: String
}
