import ObservatoryWire

/// Formats what the command-line tool prints for values and changes.
public enum ChangeFormatter {
    /// One change as `key old → new by author (vN)`; `(none)` stands for the
    /// missing old value of a created key, `(deleted)` for the new value of a
    /// deleted one. Values are compact JSON.
    ///
    ///     sky.color "blue" → "red" by alice (v12)
    public static func line(for change: RemoteChange) -> String {
        let old = change.old.map(text) ?? "(none)"
        let new = change.new.map(text) ?? "(deleted)"
        return "\(change.key) \(old) → \(new) by \(change.author.name) (v\(change.version))"
    }

    /// A value as compact JSON text.
    public static func text(_ value: JSONValue) -> String {
        String(decoding: value.encoded(), as: UTF8.self)
    }
}
