/// One secret a client may present in `hello`, with the identity and rights it grants.
///
/// When the configuration has at least one token, authentication is on. The
/// author of every change made with a token is its `author`, whatever name the
/// client sends. A key may be read or written as `read` and `write` allow (see
/// `AccessRules`); a list left out grants nothing.
public struct AccessToken: Sendable, Equatable, Decodable {
    /// The secret itself.
    public var token: String
    /// The author name stamped on every change made with this token.
    public var author: String
    /// What this token may read and write.
    public var rights: AccessRights

    /// Creates a token with its rights.
    public init(token: String, author: String, read: AccessRules, write: AccessRules) {
        self.token = token
        self.author = author
        rights = AccessRights(read: read, write: write)
    }

    /// Reads one token object strictly: `token` and `author` non-empty strings,
    /// `read` and `write` arrays of rules (absent: nothing).
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: ["token", "author", "read", "write"])
        guard let token = try settings.read("token", as: String.self, expected: "a string"), !token.isEmpty else {
            throw ConfigurationError.wrongType(setting: settings.name(of: "token"), expected: "a non-empty string")
        }
        guard let author = try settings.read("author", as: String.self, expected: "a string"), !author.isEmpty else {
            throw ConfigurationError.wrongType(setting: settings.name(of: "author"), expected: "a non-empty string")
        }
        self.token = token
        self.author = author
        rights = AccessRights(
            read: try settings.read("read", as: AccessRules.self, expected: "an array of rules") ?? .nothing,
            write: try settings.read("write", as: AccessRules.self, expected: "an array of rules") ?? .nothing)
    }
}
