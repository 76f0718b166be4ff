/// What a `history` request asks for (docs/protocol.md, "History"): the held
/// changes of a key or of the keys under a prefix, optionally only those of one
/// author name or session, with versions in (`fromRevision`, `toRevision`], at
/// most `limit` of them, oldest first unless `newestFirst`.
public struct HistoryQuery: Sendable, Equatable {
    /// The key or prefix whose changes are asked for.
    public var target: Target
    /// Only changes made under this author name, when set.
    public var author: String?
    /// Only changes made in this session, when set.
    public var session: String?
    /// Only changes with a version above this one (0: from the first).
    public var fromRevision: Int64
    /// Only changes with a version up to this one; `nil` means the current revision.
    public var toRevision: Int64?
    /// The most changes in one reply, 1 to ``maxLimit``.
    public var limit: Int
    /// Whether the newest changes come first (and a page goes back in time).
    public var newestFirst: Bool

    /// The `limit` a request without one gets.
    public static let defaultLimit = 100
    /// The highest `limit` a request may ask for; more is `bad_request`.
    public static let maxLimit = 1_000

    /// A query of `target`'s changes; every filter is off by default.
    public init(
        _ target: Target, author: String? = nil, session: String? = nil, fromRevision: Int64 = 0,
        toRevision: Int64? = nil, limit: Int = HistoryQuery.defaultLimit, newestFirst: Bool = false
    ) {
        self.target = target
        self.author = author
        self.session = session
        self.fromRevision = fromRevision
        self.toRevision = toRevision
        self.limit = limit
        self.newestFirst = newestFirst
    }

    /// Whether a change by `author` in `session` passes the author and session filters.
    public func admits(author changeAuthor: String, session changeSession: String) -> Bool {
        (author == nil || author == changeAuthor) && (session == nil || session == changeSession)
    }
}

extension HistoryQuery {
    /// Reads a `history` request's fields: the target (as `observe` reads it),
    /// then `author`, `session`, `fromRevision`, `toRevision`, `limit` and `newestFirst`.
    static func decode(from fields: FieldReader<RequestFields>, target: Target) throws(WireError) -> HistoryQuery {
        let author = try fields.optionalString(.author)
        let session = try fields.optionalString(.session)
        let from = try fields.optionalInteger(.fromRevision, minimum: 0) ?? 0
        let to = try fields.optionalInteger(.toRevision, minimum: 0)
        let limit = try fields.optionalInteger(.limit, minimum: 1) ?? Int64(defaultLimit)
        guard limit <= Int64(maxLimit) else {
            throw fields.failure(
                .limit, "must be at most \(maxLimit), got \(limit); page with fromRevision or toRevision")
        }
        return HistoryQuery(
            target, author: author, session: session, fromRevision: from, toRevision: to, limit: Int(limit),
            newestFirst: try fields.optionalBool(.newestFirst) ?? false)
    }

    /// Appends the query's fields after the target's, each preceded by a comma;
    /// defaults are left out.
    func encodeFields(into buffer: inout [UInt8], writeField: (StaticString, JSONValue, inout [UInt8]) -> Void) {
        if let author { writeField("author", .string(author), &buffer) }
        if let session { writeField("session", .string(session), &buffer) }
        if fromRevision != 0 { writeField("fromRevision", .integer(fromRevision), &buffer) }
        if let toRevision { writeField("toRevision", .integer(toRevision), &buffer) }
        if limit != Self.defaultLimit { writeField("limit", .integer(Int64(limit)), &buffer) }
        if newestFirst { writeField("newestFirst", .bool(true), &buffer) }
    }
}
