/// The limits that keep one client, or many, from exhausting the server.
///
/// Read from the `limits` object of the configuration file; every field has the
/// default shown and is checked by `ServerConfiguration.validate()`.
public struct ServerLimits: Sendable, Equatable, Decodable {
    /// Open connections at most; one more gets `limit_exceeded` and is closed.
    public var maxConnections = 20_000
    /// Bytes in one frame at most; a longer frame gets `frame_too_large` and a close.
    public var maxFrameBytes = 1_048_576
    /// Encoded bytes of one value at most; a larger one gets `value_too_large`.
    public var maxValueBytes = 524_288
    /// Keys in the store at most; creating one more gets `limit_exceeded`.
    public var maxKeys = 1_000_000
    /// Bytes the store's entries may take in memory at most (keys, values as held,
    /// authors and sessions; see docs/configuration.md for how they are counted). A
    /// write that would pass it gets `limit_exceeded`, as Redis's `maxmemory` with
    /// `noeviction`; deletes and writes that shrink a value always go through.
    public var maxStoreBytes = 1 << 30
    /// Distinct keys and prefixes one connection may observe; more gets `limit_exceeded`.
    public var maxObservationsPerConnection = 1_024
    /// Unsent bytes queued for one connection before its events are coalesced,
    /// and if that is not enough, before it is closed with `slow_consumer`.
    public var maxQueuedBytes = 8_388_608
    /// Keys one `list` reply holds at most, whatever its `limit`; `more` tells the
    /// client to ask for the next page.
    public var maxListKeys = 10_000
    /// Bytes all connections together may hold in unfinished frames; beyond it the
    /// connections with the largest partial frames are not read until it drains.
    public var maxBufferedInputBytes = 256 << 20
    /// Recent changes kept for observers that resume with `fromRevision`: a client
    /// that missed at most this many changes (of any keys) gets exactly those;
    /// one that missed more gets a snapshot (`resumed: false`). At least 10,000, as
    /// docs/protocol.md asks. Each costs its event's size in memory.
    public var historyChanges = 100_000
    /// Bytes of recent changes (their events as sent) kept for resuming at most,
    /// besides `historyChanges`: whichever is reached first forgets the oldest.
    /// docs/protocol.md asks for at least the last 64 MiB of them when changes are large.
    public var historyBytes = 64 << 20
    /// `requestId`s of the last 10 minutes remembered at most; past it the oldest
    /// are forgotten early (and a retry of those writes would apply again).
    public var maxRequestIds = 1_000_000

    /// The defaults.
    public init() {}

    static let settingNames = [
        "maxConnections", "maxFrameBytes", "maxValueBytes", "maxKeys", "maxStoreBytes",
        "maxObservationsPerConnection", "maxQueuedBytes", "maxListKeys", "maxBufferedInputBytes",
        "historyChanges", "historyBytes", "maxRequestIds",
    ]

    /// Reads the `limits` object strictly, keeping defaults for absent fields.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: Self.settingNames)
        let integer = "an integer"
        maxConnections = try settings.read("maxConnections", as: Int.self, expected: integer) ?? maxConnections
        maxFrameBytes = try settings.read("maxFrameBytes", as: Int.self, expected: integer) ?? maxFrameBytes
        maxValueBytes = try settings.read("maxValueBytes", as: Int.self, expected: integer) ?? maxValueBytes
        maxKeys = try settings.read("maxKeys", as: Int.self, expected: integer) ?? maxKeys
        maxStoreBytes = try settings.read("maxStoreBytes", as: Int.self, expected: integer) ?? maxStoreBytes
        maxObservationsPerConnection =
            try settings.read("maxObservationsPerConnection", as: Int.self, expected: integer)
            ?? maxObservationsPerConnection
        maxQueuedBytes = try settings.read("maxQueuedBytes", as: Int.self, expected: integer) ?? maxQueuedBytes
        maxListKeys = try settings.read("maxListKeys", as: Int.self, expected: integer) ?? maxListKeys
        maxBufferedInputBytes =
            try settings.read("maxBufferedInputBytes", as: Int.self, expected: integer) ?? maxBufferedInputBytes
        historyChanges = try settings.read("historyChanges", as: Int.self, expected: integer) ?? historyChanges
        historyBytes = try settings.read("historyBytes", as: Int.self, expected: integer) ?? historyBytes
        maxRequestIds = try settings.read("maxRequestIds", as: Int.self, expected: integer) ?? maxRequestIds
    }

    /// Throws `outOfRange` naming the first limit that cannot work.
    public func validate() throws {
        try Self.check("limits.maxConnections", maxConnections, 1...1_000_000)
        try Self.check("limits.maxFrameBytes", maxFrameBytes, 64...1_073_741_824)
        try Self.check("limits.maxValueBytes", maxValueBytes, 1...maxFrameBytes)
        try Self.check("limits.maxKeys", maxKeys, 1...Int(Int32.max))
        try Self.check("limits.maxStoreBytes", maxStoreBytes, (1 << 20)...(1 << 50))
        try Self.check("limits.maxObservationsPerConnection", maxObservationsPerConnection, 1...1_000_000)
        try Self.check("limits.maxQueuedBytes", maxQueuedBytes, 1_024...Int(Int32.max))
        try Self.check("limits.maxListKeys", maxListKeys, 1...1_000_000)
        try Self.check("limits.maxBufferedInputBytes", maxBufferedInputBytes, 65_536...(1 << 40))
        try Self.check("limits.historyChanges", historyChanges, 10_000...100_000_000)
        try Self.check("limits.historyBytes", historyBytes, (64 << 20)...(1 << 40))
        try Self.check("limits.maxRequestIds", maxRequestIds, 1_000...100_000_000)
    }

    static func check(_ setting: String, _ value: Int, _ range: ClosedRange<Int>) throws {
        guard range.contains(value) else {
            throw ConfigurationError.outOfRange(
                setting: setting, value: String(value), allowed: "\(range.lowerBound)...\(range.upperBound)")
        }
    }
}
