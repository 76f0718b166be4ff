import Observatory

/// docs/core.md's sky, which its first example declares and later ones observe.
public final class Sky: ObservableObject, Sendable {
    /// The one sky.
    public static let shared = Sky()
    /// What the sky sends: its color's name.
    public let messenger = Messenger<String>()
}
