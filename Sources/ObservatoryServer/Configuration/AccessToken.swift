/// One secret a client may present in `hello`, with the identity and rights it grants.
///
/// When the configuration lists at least one token, authentication is on: every
/// connection must `hello` with one of the tokens first. The author of its changes
/// is `author`, whatever name the client sends. A key may be read when it starts
/// with one of the `read` prefixes and written when it starts with one of the
/// `write` prefixes; `""` matches every key, `[]` none.
public struct AccessToken: Sendable, Equatable, Decodable {
    /// The secret itself.
    public var token: String
    /// The author name stamped on every change made with this token.
    public var author: String
    /// Key prefixes this token may get, observe and list.
    public var read: [String]
    /// Key prefixes this token may set and delete.
    public var write: [String]

    /// Creates a token; by default it may read and write every key.
    public init(token: String, author: String, read: [String] = [""], write: [String] = [""]) {
        self.token = token
        self.author = author
        self.read = read
        self.write = write
    }

    /// Reads one entry of `tokens` strictly; `read` and `write` default to `[""]`.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: ["token", "author", "read", "write"])
        let text = "a string"
        let prefixes = "an array of key prefixes (strings)"
        guard let token = try settings.read("token", as: String.self, expected: text), !token.isEmpty else {
            throw ConfigurationError.wrongType(setting: settings.name(of: "token"), expected: "a non-empty string")
        }
        guard let author = try settings.read("author", as: String.self, expected: text), !author.isEmpty else {
            throw ConfigurationError.wrongType(setting: settings.name(of: "author"), expected: "a non-empty string")
        }
        self.token = token
        self.author = author
        read = try settings.read("read", as: [String].self, expected: prefixes) ?? [""]
        write = try settings.read("write", as: [String].self, expected: prefixes) ?? [""]
    }

    /// Whether this token may read `key`.
    public func mayRead(_ key: String) -> Bool {
        read.contains { key.utf8.starts(with: $0.utf8) }
    }

    /// Whether this token may write `key`.
    public func mayWrite(_ key: String) -> Bool {
        write.contains { key.utf8.starts(with: $0.utf8) }
    }
}
