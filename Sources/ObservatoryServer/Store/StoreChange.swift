import ObservatoryWire

/// One change of the store, as every observer of its key receives it.
///
/// Carries the event encoded as a frame (with its LF) once the store has encoded
/// it (`encoded()`): a change observed by a thousand connections is encoded once,
/// not a thousand times, and a change nobody observes is not encoded at all. A
/// class, so that handing it to each observer costs one reference count, not a
/// copy of its fields. It is also what the storage log appends
/// (`storageRecords`): it holds everything needed to replay it.
public final class StoreChange: Sendable, Equatable {
    /// An event's line and where its `old` member sits in it.
    private struct Encoding: Sendable {
        let frame: [UInt8]
        let oldMember: Range<Int>

        init(_ event: RawEvent) {
            var oldMember = 0..<0
            frame = FrameBuilder.line { oldMember = event.encode(into: &$0) }
            self.oldMember = oldMember
        }

        init(frame: [UInt8], oldMember: Range<Int>) {
            self.frame = frame
            self.oldMember = oldMember
        }
    }

    /// The event sent to observers.
    public let event: RawEvent
    /// The key that changed.
    public let key: String
    /// The revision this change took.
    public let version: Int64
    /// When the change was made: milliseconds since 1970-01-01 UTC by the
    /// server's clock (in cluster mode, the writing node's, carried in etcd);
    /// 0 when unknown (a change stored by a version that kept no times).
    public let at: Int64
    /// The encoded event, when this change was made by `encoded()` (or coalescing).
    private let encoding: Encoding?
    /// The bytes its values hold, when the store counted them while planning it
    /// (`Footprint.of(change:)` adds up its values otherwise).
    let heldBytes: Int?

    /// The encoded event line, ending in LF: the one made once by `encoded()`,
    /// else encoded anew at each call.
    public var frame: [UInt8] {
        encoding?.frame ?? Encoding(event).frame
    }

    /// Where the `,"old":…` member sits in `frame` (empty for a creation), so that
    /// coalescing can splice bytes instead of encoding values again.
    var oldMember: Range<Int> {
        encoding?.oldMember ?? Encoding(event).oldMember
    }

    /// `frame.count`, read in place: output queues count every event they hold.
    var frameByteCount: Int {
        encoding?.frame.count ?? frame.count
    }

    /// Appends `frame` to `buffer`, copied from where it is kept; without its
    /// final LF when `withoutLineFeed` (a WebSocket message carries the line alone).
    func appendFrame(to buffer: inout [UInt8], withoutLineFeed: Bool = false) {
        let dropped = withoutLineFeed ? 1 : 0
        guard let encoding else { return buffer.append(contentsOf: frame.dropLast(dropped)) }
        encoding.frame.withUnsafeBufferPointer { bytes in
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - dropped)]))
        }
    }

    /// Whether the event was encoded once for all its observers (`encoded()`).
    var isEncoded: Bool {
        encoding != nil
    }

    private var encodingOrNew: Encoding {
        encoding ?? Encoding(event)
    }

    /// Creates the change for `event`, which must be an update or a delete, not yet encoded.
    convenience init(_ event: RawEvent, key: String, version: Int64, at: Int64, heldBytes: Int? = nil) {
        self.init(event, key: key, version: version, at: at, encoding: nil, heldBytes: heldBytes)
    }

    private init(
        _ event: RawEvent, key: String, version: Int64, at: Int64, encoding: Encoding?, heldBytes: Int? = nil
    ) {
        self.event = event
        self.key = key
        self.version = version
        self.at = at
        self.encoding = encoding
        self.heldBytes = heldBytes
    }

    /// This change with its event encoded, ready to be queued for observers:
    /// itself when it already is.
    public func encoded() -> StoreChange {
        guard encoding == nil else { return self }
        return StoreChange(
            event, key: key, version: version, at: at, encoding: Encoding(event), heldBytes: heldBytes)
    }

    /// The change an update or delete event describes (`nil` for `shutdown`):
    /// how storage rebuilds the history of recent changes, with the time it stored.
    convenience init?(_ event: RawEvent, at: Int64) {
        switch event {
        case .update(let key, _, _, let version, _, _, _, _), .delete(let key, _, let version, _, _, _):
            self.init(event, key: key, version: version, at: at)
        case .shutdown:
            return nil
        }
    }

    /// A created or changed key; `old` is `nil` for a creation; `ttl` is the
    /// seconds an expiring key has left. `heldBytes`: what its values hold, if the
    /// caller counted it; `at`: when it was made (now by default).
    static func update(
        key: String, old: EncodedJSON?, new: EncodedJSON, version: Int64, by author: Author,
        sessionBound: Bool = false, ttl: Int64? = nil, heldBytes: Int? = nil, at: Int64 = StoreChange.now()
    ) -> StoreChange {
        let event = RawEvent.update(
            key: key, old: old, new: new, version: version, author: author.name, session: author.session,
            sessionBound: sessionBound, ttl: ttl)
        return StoreChange(event, key: key, version: version, at: at, heldBytes: heldBytes)
    }

    /// A deleted key; `old` is its last value, `reason` says why when the server deleted it.
    static func delete(
        key: String, old: EncodedJSON, version: Int64, by author: Author, reason: String? = nil,
        heldBytes: Int? = nil, at: Int64 = StoreChange.now()
    ) -> StoreChange {
        let event = RawEvent.delete(
            key: key, old: old, version: version, author: author.name, session: author.session, reason: reason)
        return StoreChange(event, key: key, version: version, at: at, heldBytes: heldBytes)
    }

    /// The server's clock in milliseconds since 1970-01-01 UTC: the `at` of a change made now.
    static func now() -> Int64 {
        AppliedWrites.wallMilliseconds()
    }

    /// This change followed by `later` (same key) as one change, for a slow consumer:
    /// the first `old`, the latest new value, version and author.
    ///
    /// A key created and then deleted within the window has no first `old`; the
    /// delete then carries the value it deleted, since a delete event always has `old`.
    ///
    /// The frame is `later`'s with its `old` member replaced by this one's: bytes
    /// are copied, no value is encoded again.
    func coalesced(with later: StoreChange) -> StoreChange {
        let firstOld = old
        let event: RawEvent
        switch later.event {
        case .update(let key, _, let new, let version, let author, let session, let sessionBound, let ttl):
            event = .update(
                key: key, old: firstOld, new: new, version: version, author: author, session: session,
                sessionBound: sessionBound, ttl: ttl)
        case .delete(let key, let lastOld, let version, let author, let session, let reason):
            event = .delete(
                key: key, old: firstOld ?? lastOld, version: version, author: author, session: session, reason: reason)
            if firstOld == nil {
                return StoreChange(event, key: key, version: version, at: later.at, encoding: later.encodingOrNew)
            }
        case .shutdown:
            return later
        }
        let (first, last) = (encodingOrNew, later.encodingOrNew)
        var frame: [UInt8] = []
        frame.reserveCapacity(last.frame.count - last.oldMember.count + first.oldMember.count)
        frame.append(contentsOf: last.frame[..<last.oldMember.lowerBound])
        frame.append(contentsOf: first.frame[first.oldMember])
        frame.append(contentsOf: last.frame[last.oldMember.upperBound...])
        let start = last.oldMember.lowerBound
        return StoreChange(
            event, key: later.key, version: later.version, at: later.at,
            encoding: Encoding(frame: frame, oldMember: start..<(start + first.oldMember.count)))
    }

    /// The size of `first.coalesced(with: later).frame`, without building it.
    static func coalescedByteCount(_ first: StoreChange, _ later: StoreChange) -> Int {
        if case .delete = later.event, first.old == nil { return later.frameByteCount }
        if case .shutdown = later.event { return later.frameByteCount }
        return later.frameByteCount - later.oldMember.count + first.oldMember.count
    }

    /// Changes are equal when their events are (the frame follows from the event).
    public static func == (lhs: StoreChange, rhs: StoreChange) -> Bool {
        lhs.event == rhs.event
    }

    /// The records the storage log keeps for this change: its time, then the entry
    /// as it stands after it, or the delete (none for `shutdown`, which is never a store change).
    /// An expiring key's record needs its expiry, which the event does not hold:
    /// `expiry` gives it.
    func storageRecords(expiry: KeyExpiry? = nil) -> [StorageRecord] {
        switch event {
        case .update(let key, _, let new, let version, let author, let session, let sessionBound, _):
            [
                .changeTime(at),
                .set(
                    RawValueEntry(
                        key: key, value: new, version: version, author: author, session: session,
                        sessionBound: sessionBound, expiry: expiry)),
            ]
        case .delete(let key, _, let version, let author, let session, let reason):
            [
                .changeTime(at),
                .delete(
                    key: key, version: version, author: author, session: session,
                    sessionEnded: reason == RawEvent.sessionEnded, expired: reason == RawEvent.expired),
            ]
        case .shutdown:
            []
        }
    }

    /// Appends the payload of this change's `set` or `delete` record (the second
    /// of `storageRecords`) to `buffer`, encoded straight from the event's
    /// fields: the log's record of a set with no record, entry or array built.
    func encodeRecord(expiry: KeyExpiry?, into buffer: inout [UInt8]) {
        switch event {
        case .update(let key, _, let new, let version, let author, let session, let sessionBound, _):
            StorageRecord.encodeSet(
                key: key, value: new, version: version, author: author, session: session,
                sessionBound: sessionBound, expiry: expiry, into: &buffer)
        case .delete(let key, _, let version, let author, let session, let reason):
            StorageRecord.encodeDelete(
                key: key, version: version, author: author, session: session,
                sessionEnded: reason == RawEvent.sessionEnded, expired: reason == RawEvent.expired, into: &buffer)
        case .shutdown:
            preconditionFailure("a shutdown is never a store change")
        }
    }

    /// Appends this change's `set` or `delete` record (the second of
    /// `storageRecords`), framed, to `buffer`: sized first and written in one
    /// copy (`StorageRecord.appendLastingSet`, `appendDelete`); an expiring
    /// key's, which is rare, through `encodeRecord`.
    func appendRecord(expiry: KeyExpiry?, to buffer: inout [UInt8]) {
        switch event {
        case .update(let key, _, let new, let version, let author, let session, let sessionBound, _) where expiry == nil:
            StorageRecord.appendLastingSet(
                key: key, value: new, version: version, author: author, session: session,
                sessionBound: sessionBound, to: &buffer)
        case .delete(let key, _, let version, let author, let session, let reason):
            StorageRecord.appendDelete(
                key: key, version: version, author: author, session: session,
                sessionEnded: reason == RawEvent.sessionEnded, expired: reason == RawEvent.expired, to: &buffer)
        case .update, .shutdown:
            RecordFraming.append(to: &buffer) { encodeRecord(expiry: expiry, into: &$0) }
        }
    }

    /// The fields of the reply to the write that made this change: `set`
    /// (`changed`) or `delete`, with its key and version.
    var replyPayload: ReplyPayload {
        if case .delete = event { return .delete(key: key, version: version) }
        return .set(key: key, version: version, changed: true)
    }

    /// The author name of the change.
    var author: String {
        switch event {
        case .update(_, _, _, _, let author, _, _, _), .delete(_, _, _, let author, _, _): author
        case .shutdown: ""
        }
    }

    /// The session id of the change.
    var session: String {
        switch event {
        case .update(_, _, _, _, _, let session, _, _), .delete(_, _, _, _, let session, _): session
        case .shutdown: ""
        }
    }

    /// The value before this change, if the key existed.
    var old: EncodedJSON? {
        switch event {
        case .update(_, let old, _, _, _, _, _, _): old
        case .delete(_, let old, _, _, _, _): old
        case .shutdown: nil
        }
    }
}
