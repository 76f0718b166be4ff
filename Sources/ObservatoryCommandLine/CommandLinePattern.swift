import ObservatoryWire

/// The patterns `list` and `watch` take, read the same way by both.
///
/// `PREFIX*` (such as `sky.*`) is every key that starts with `PREFIX`, and `*`
/// alone every key: the same rule as access rules in the daemon's configuration.
/// Text without `*` is a key for `watch` and a prefix for `list` (`list sky.`
/// lists what `list 'sky.*'` lists). A `*` anywhere but at the end is an error,
/// never a literal character: keys with `*` inside cannot be watched or listed
/// by pattern from the command line.
enum CommandLinePattern {
    /// What `pattern` names: `.prefix` for `PREFIX*`, `.key` for text without `*`.
    /// - Throws: ``CommandLineUsageError`` when a `*` is not the last character.
    static func target(from pattern: String, for command: String) throws(CommandLineUsageError) -> Target {
        guard let star = pattern.firstIndex(of: "*") else { return .key(pattern) }
        guard pattern.index(after: star) == pattern.endIndex else {
            throw CommandLineUsageError(
                "\(command): '\(pattern)' has a * before its end; a pattern is a KEY, or a PREFIX followed by one *"
                    + " at the end (sky.* for every key that starts with sky.)")
        }
        return .prefix(String(pattern.dropLast()))
    }

    /// What `history` shows: `PREFIX*` and `PREFIX.` (text ending in a dot, the
    /// separator of namespaces) are prefixes, other text a key.
    static func historyTarget(from pattern: String) throws(CommandLineUsageError) -> Target {
        let target = try target(from: pattern, for: "history")
        guard case .key(let key) = target, key.hasSuffix(".") else { return target }
        return .prefix(key)
    }

    /// The prefix `list` lists: `PREFIX*` and `PREFIX` alike.
    static func prefix(from pattern: String) throws(CommandLineUsageError) -> String {
        switch try target(from: pattern, for: "list") {
        case .key(let prefix), .prefix(let prefix): prefix
        }
    }
}
