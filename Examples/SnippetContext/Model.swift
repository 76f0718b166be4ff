import Observatory

/// A codable model with a variable, as README.md decodes one from SwiftObserver's data.
public final class Model: Codable {
    /// The model's text.
    public private(set) var text = Var("")
}
