/// The `auth` block of the configuration: the tokens, a file with more of them,
/// and the rights of connections that have not presented one.
///
/// ```json
/// {"auth": {
///   "tokens": [{"token": "t-alice", "author": "alice", "read": ["*"], "write": ["sky.*"]}],
///   "tokensFile": "/run/secrets/observatory-tokens.json",
///   "anonymous": {"read": ["public.*"], "write": []}
/// }}
/// ```
public struct AuthConfiguration: Sendable, Equatable, Decodable {
    /// The accepted tokens (those of `tokensFile` are added when the daemon
    /// resolves its configuration). None: access is open, no authentication.
    public var tokens: [AccessToken] = []
    /// A JSON file holding an array of token objects, so that no secret sits in
    /// the configuration (also `OBSERVATORY_TOKENS_FILE`).
    public var tokensFile: String?
    /// With tokens, the rights of a connection before a successful `hello`; absent,
    /// it may do nothing but `hello`.
    public var anonymous: AccessRights?

    /// No authentication.
    public init() {}

    static let settingNames = ["tokens", "tokensFile", "anonymous"]

    /// Reads the `auth` object strictly.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: Self.settingNames)
        tokens = try settings.read("tokens", as: [AccessToken].self, expected: "an array of token objects") ?? []
        // null, as in Config/observatory.json, is the default: none.
        tokensFile = try settings.read("tokensFile", as: String?.self, expected: "a path (string) or null") ?? nil
        anonymous =
            try settings.read("anonymous", as: AccessRights?.self, expected: "an object with read and write, or null")
            ?? nil
    }
}
