import Observatory

/// docs/core.md's codable note, which one example declares and the next decodes.
public final class Note: Codable {
    /// The note's text.
    public private(set) var text = Var("String Variable")
}
