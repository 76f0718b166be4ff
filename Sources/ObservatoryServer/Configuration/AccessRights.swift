/// What a connection may read (get, observe, list) and write (set, delete).
public struct AccessRights: Sendable, Equatable, Decodable {
    /// Keys it may get, observe and list.
    public var read: AccessRules
    /// Keys it may set and delete.
    public var write: AccessRules

    /// Rights with these rules.
    public init(read: AccessRules = .nothing, write: AccessRules = .nothing) {
        self.read = read
        self.write = write
    }

    /// Reads `{"read": [...], "write": [...]}` strictly; an absent list grants nothing.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: ["read", "write"])
        read = try settings.read("read", as: AccessRules.self, expected: "an array of rules") ?? .nothing
        write = try settings.read("write", as: AccessRules.self, expected: "an array of rules") ?? .nothing
    }
}
