/// The rules of one mirror, without a network, a lock or a queue: what it knows
/// of the server's value, which local writes are unsent or in flight, and so
/// what its `Var` should show.
///
/// ``Mirror`` keeps one inside its lock, feeds it what happened (a snapshot,
/// an event, a local write, a reply) and carries out what it answers. So every
/// convergence rule is a plain unit test:
///
/// - **Initial value**: until the first snapshot the server's value is unknown
///   and the `Var` keeps its default.
/// - **Remote change**: an event newer than the recorded version on the current
///   link is recorded; the `Var` takes it only while no local write is unsent or
///   in flight (the mirror is *quiet*).
/// - **Own write**: a local write is sent, and its acknowledgement records the
///   acknowledged version with the written value, so the server's echo of it
///   (same version) changes nothing: **no echo**.
/// - **Resync**: a snapshot on a new link replaces the record, even with a lower
///   version (a server that lost its history); on the same link an older
///   snapshot is ignored.
/// - **Offline write wins after resync**: a write made while disconnected stays
///   unsent; the resync snapshot is recorded but not shown, and the write is sent
///   once in sync, so it lands after what others wrote meanwhile.
/// - **Reset**: a snapshot after a refused resume is authored by the ``Reset``.
/// - **Decode error**: a value that does not decode is recorded as undecodable;
///   the `Var` keeps what it shows and the error is reported.
///
/// `Author` is whatever authors the `Var`'s updates (a shared author object in
/// the client); the state never looks inside it.
struct MirrorState<Value: Equatable, Author> {
    /// What the mirror last learned about the server's value.
    enum ServerValue {
        /// No snapshot yet.
        case unknown
        /// The key does not exist; the `Var` shows the default.
        case absent(author: Author)
        /// The key holds this value.
        case value(Value, author: Author)
        /// The key holds a value that does not decode as `Value`; the `Var` keeps what it has.
        case undecodable
    }

    /// What the server sent about the key, decoded as the mirror's type.
    enum Remote {
        /// The key does not exist (a snapshot without it, or a delete).
        case absent
        /// The key holds this value.
        case value(Value)
        /// The key holds a value that is not a `Value`; `detail` says why.
        case undecodable(detail: String)
    }

    /// What the mirror does after a snapshot or an event.
    struct Outcome {
        /// The value the `Var` should take, with its author; nil: leave the `Var` as it is.
        var show: (value: Value, author: Author)?
        /// The decoding failure to report, with the version that carried it.
        var undecodable: (version: Int64, detail: String)?
        /// How many local writes the mirror had seen when it decided; the `Var` takes
        /// `show` only if none came meanwhile (see ``isStillQuiet(after:)``).
        var localWriteCount: Int
    }

    /// The value the `Var` shows while the key does not exist.
    let defaultValue: Value

    /// What to do with the reply to a write.
    enum WriteReply {
        /// The server applied the write at `version`.
        case acknowledged(version: Int64)
        /// The connection ended before the reply: the write is sent again after the resync.
        case connectionLost
        /// The server refused the write (or answered nonsense): it is dropped and reported.
        case refused
        /// The request failed in the client (not connected, closed): it is dropped and reported.
        case failed
    }

    /// The link the record belongs to; events of other links are stale.
    private(set) var generation = -1
    /// The version of the server's value the record holds (0 while the key does not exist).
    private(set) var version: Int64 = 0
    /// The server's value as last seen.
    private(set) var server = ServerValue.unknown
    /// Writes sent and not answered yet.
    private(set) var writesInFlight = 0
    /// A local value waits to be sent.
    private(set) var hasUnsentWrite = false
    /// Local writes so far; a delivery decided before the latest one is dropped.
    private(set) var localWriteCount = 0
    /// The `requestId` of the write that is unsent or in flight: a write whose
    /// reply a broken connection took is sent again with the same id, so the
    /// server applies it once. A new local value takes a new id.
    private(set) var requestId: String?

    /// No local write waits to be sent or acknowledged, so the `Var` may show the server's value.
    var isQuiet: Bool { writesInFlight == 0 && !hasUnsentWrite }

    /// Whether a snapshot has been taken (only then can the key resume after a reconnect).
    var hasSnapshot: Bool {
        if case .unknown = server { return false }
        return true
    }

    /// Starts with nothing known of the server's value.
    init(defaultValue: Value) {
        self.defaultValue = defaultValue
    }

    /// The value and author the `Var` should show now, if the mirror is quiet and knows one.
    func shown() -> (value: Value, author: Author)? {
        guard isQuiet else { return nil }
        switch server {
        case .value(let value, let author): return (value, author)
        case .absent(let author): return (defaultValue, author)
        case .unknown, .undecodable: return nil
        }
    }

    /// Whether a delivery decided with `count` local writes may still set the `Var`.
    func isStillQuiet(after count: Int) -> Bool {
        isQuiet && localWriteCount == count
    }

    // MARK: Local writes

    /// The program changed the `Var`: the new value is to be sent, with a new request id.
    mutating func wroteLocally() {
        localWriteCount += 1
        hasUnsentWrite = true
        requestId = nil
    }

    /// The session ended. A session-bound mirror that wrote before writes its
    /// value again on the next session (the server deleted it); returns whether
    /// it now has an unsent write.
    mutating func sessionEnded(ephemeral: Bool) -> Bool {
        guard ephemeral, localWriteCount > 0, !hasUnsentWrite else { return false }
        hasUnsentWrite = true
        requestId = nil
        return true
    }

    /// Takes the unsent write for sending; returns its request id (the same as
    /// before when it is a resend), or nil when nothing is unsent.
    mutating func beginSend(makeIdentifier: () -> String) -> String? {
        guard hasUnsentWrite else { return nil }
        hasUnsentWrite = false
        writesInFlight += 1
        let identifier = requestId ?? makeIdentifier()
        requestId = identifier
        return identifier
    }

    /// The write never reached the server (the client was not in sync): it stays unsent.
    mutating func sendDidNotHappen() {
        writesInFlight -= 1
        hasUnsentWrite = true
    }

    /// The value could not be encoded, so the write is dropped.
    mutating func sendAbandoned() {
        writesInFlight -= 1
    }

    /// The reply to a write of `value` came; `author` is this client's own
    /// author, for the acknowledged value. Returns whether the write must be sent again.
    mutating func writeReplied(_ reply: WriteReply, value: Value, author: Author) -> Bool {
        switch reply {
        case .connectionLost:
            sendDidNotHappen()
            return true
        case .failed:
            writesInFlight -= 1
            requestId = nil
        case .refused:
            writesInFlight -= 1
            if isQuiet { requestId = nil }
        case .acknowledged(let acknowledged):
            writesInFlight -= 1
            if isQuiet { requestId = nil }
            if acknowledged > version {
                version = acknowledged
                server = .value(value, author: author)
            }
        }
        return false
    }

    // MARK: Remote changes

    /// The server resumed the key on link `generation`: the missed events follow.
    mutating func resumed(generation: Int) {
        self.generation = generation
    }

    /// A snapshot of the key at `version` on link `generation`. `author` authors
    /// a value (the last writer's author, or a reset's), `resyncAuthor` a missing key.
    mutating func tookSnapshot(
        _ remote: Remote, version: Int64, author: Author, resyncAuthor: Author, generation: Int
    ) -> Outcome? {
        if self.generation == generation && version < self.version { return nil }
        self.generation = generation
        return record(remote, version: version, author: author, absentAuthor: resyncAuthor)
    }

    /// A change event at `version` by `author` on link `generation`; nil when it is stale.
    mutating func received(_ remote: Remote, version: Int64, author: Author, generation: Int) -> Outcome? {
        guard generation == self.generation, version > self.version else { return nil }
        return record(remote, version: version, author: author, absentAuthor: author)
    }

    /// Takes `remote` at `version` as the server's value; `absentAuthor` authors a missing key.
    private mutating func record(_ remote: Remote, version: Int64, author: Author, absentAuthor: Author) -> Outcome {
        self.version = version
        var outcome = Outcome(localWriteCount: localWriteCount)
        switch remote {
        case .absent: server = .absent(author: absentAuthor)
        case .value(let value): server = .value(value, author: author)
        case .undecodable(let detail):
            server = .undecodable
            outcome.undecodable = (version, detail)
        }
        outcome.show = shown()
        return outcome
    }
}
