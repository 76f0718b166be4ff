/// What an `observe` or `unobserve` request is about: one key, or every key under a prefix.
public enum Target: Sendable, Hashable {
    /// Exactly this key (sent as `"key"`).
    case key(String)
    /// Every key that starts with this prefix (sent as `"prefix"`; may be empty for all keys).
    case prefix(String)
}
