/// Which keys a list of rules grants: each rule is an exact key (`sky.color`) or
/// a prefix pattern ending in `*` (`sky.*` is every key that starts with `sky.`,
/// `*` every key). Keys and rules compare by their UTF-8 bytes.
///
/// ```swift
/// let rules = try AccessRules(["sky.*", "door.open"])
/// rules.allows("sky.color")   // true
/// rules.allows("skyline")     // false: "sky.*" needs the dot
/// rules.allows("door.open")   // true; "door.opened" is not granted
/// ```
public struct AccessRules: Sendable, Equatable, Decodable, ExpressibleByArrayLiteral {
    /// The rules as written.
    public let rules: [String]
    private let exactKeys: Set<StoreKey>
    private let prefixes: [String]

    /// No key at all.
    public static let nothing = AccessRules(checked: [])
    /// Every key.
    public static let everything = AccessRules(checked: ["*"])

    /// Checks and keeps `rules`.
    ///
    /// - Throws: `ConfigurationError.invalidValue` for an empty rule or one with a
    ///   `*` anywhere but at its end.
    public init(_ rules: [String], setting: String = "rules") throws {
        for (index, rule) in rules.enumerated() {
            let star = rule.firstIndex(of: "*")
            guard !rule.isEmpty, star == nil || star == rule.index(before: rule.endIndex) else {
                throw ConfigurationError.invalidValue(
                    setting: "\(setting)[\(index)]", value: rule,
                    allowed: "an exact key (sky.color) or a prefix ending in * (sky.*, or * for every key)")
            }
        }
        self.init(checked: rules)
    }

    private init(checked rules: [String]) {
        self.rules = rules
        exactKeys = Set(rules.filter { !$0.hasSuffix("*") }.map(StoreKey.init))
        prefixes = rules.filter { $0.hasSuffix("*") }.map { String($0.dropLast()) }
    }

    /// Rules written in code, taken as they are: a `*` that is not last is then part
    /// of an exact key (the configuration file's rules are checked by `init(_:setting:)`).
    public init(arrayLiteral rules: String...) {
        self.init(checked: rules)
    }

    /// Reads an array of rules strictly.
    public init(from decoder: any Decoder) throws {
        let setting = StrictSettings.dottedPath(decoder.codingPath)
        let rules: [String]
        do {
            rules = try [String](from: decoder)
        } catch {
            throw ConfigurationError.wrongType(setting: setting, expected: "an array of rules (strings)")
        }
        try self.init(rules, setting: setting)
    }

    /// Whether `key` is granted: it is one of the exact keys, or starts with a pattern's prefix.
    public func allows(_ key: String) -> Bool {
        exactKeys.contains(StoreKey(key)) || prefixes.contains { key.utf8.starts(with: $0.utf8) }
    }

    /// Whether every key that starts with `prefix` is granted, as observing the
    /// prefix needs: a pattern covers it (`sky.*` covers `sky.` and `sky.light.`;
    /// exact keys never cover a prefix).
    public func allowsEveryKey(withPrefix prefix: String) -> Bool {
        prefixes.contains { prefix.utf8.starts(with: $0.utf8) }
    }

    public static func == (lhs: AccessRules, rhs: AccessRules) -> Bool {
        lhs.rules == rhs.rules
    }
}
