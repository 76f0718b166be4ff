/// A tab of a user interface with an optional badge, for README.md's binding.
public final class Tab {
    /// The number on the tab; nil shows none.
    public var badge: Int?

    /// Creates a tab without a badge.
    public init() {}
}
