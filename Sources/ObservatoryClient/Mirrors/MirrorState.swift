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
/// - **Conflicts**: a remote change recorded while a local write is unsent or
///   in flight, above the version the write was made on, is one the program
///   did not see. When the write is acknowledged, the changes below its version
///   are the ones it replaced: a ``Conflict`` the shell reports. With
///   `serverWins`, writes are sent with `ifVersion` (``writeCondition``), so
///   the server refuses one that such a change came before; such a change also
///   drops a write that is still unsent. The `Var` then shows the server's
///   value, and the conflict is reported the same way.
/// - **Never back**: what the `Var` is to show is fixed when the delivery is
///   decided (a ``Delivery``, with its link and version), and a delivery is
///   carried out only if it is not older than the last one carried out, so the
///   versions a mirror delivers never go back, whatever order deliveries
///   decided on different threads reach the delivery queue in.
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

    /// A value the `Var` is to show, fixed when decided: the delivery queue
    /// carries it out later, if ``deliver(_:)`` still allows it then.
    struct Delivery {
        /// The value to show.
        let value: Value
        /// The author of the update.
        let author: Author
        /// The link the value was learned on.
        let generation: Int
        /// The server's version of the value.
        let version: Int64
        /// How many local writes the mirror had seen when it decided; the
        /// delivery is dropped if any came meanwhile.
        let localWriteCount: Int

        /// Whether this delivery is older than one of `generation` at `version`:
        /// an earlier link, or the same link and a lower version.
        func isOlder(thanGeneration generation: Int, version: Int64) -> Bool {
            self.generation < generation || (self.generation == generation && self.version < version)
        }
    }

    /// What the mirror does after a snapshot or an event.
    struct Outcome {
        /// What the `Var` should take; nil: leave the `Var` as it is.
        var show: Delivery?
        /// The decoding failure to report, with the version that carried it.
        var undecodable: (version: Int64, detail: String)?
    }

    /// The value the `Var` shows while the key does not exist.
    let defaultValue: Value
    /// Whether a remote change the program did not see drops a local write
    /// that is still unsent (else the write is sent and replaces it).
    var serverWins = false

    /// What to do with the reply to a write.
    enum WriteReply {
        /// The server applied the write at `version`.
        case acknowledged(version: Int64)
        /// The connection ended before the reply: the write is sent again after the resync.
        case connectionLost
        /// The server refused the write (or answered nonsense): it is dropped and reported.
        case refused
        /// The server refused the write's `ifVersion` (``serverWins``): a change
        /// by someone else came first, and its value stays.
        case conflicted
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
    /// The value of the latest local write while it is unsent or in flight:
    /// what is sent, even if a delivery decided before the write sets the `Var`
    /// after it.
    private(set) var localValue: Value?
    /// The version of the server's value when the latest stretch of local
    /// writes began: changes above it are ones the writes replace unseen.
    private(set) var basedOn: Int64 = 0
    /// Remote changes recorded during the current stretch of local writes, above `basedOn`.
    private(set) var replaced: [ReplacedChange] = []
    /// A conflict settled and not yet taken by the shell.
    private var settled: Conflict?
    /// The link and version of the last delivery carried out; none is carried out below it.
    private(set) var delivered: (generation: Int, version: Int64)?

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

    /// What the `Var` should show now, if the mirror is quiet and knows a value.
    func shown() -> Delivery? {
        guard isQuiet else { return nil }
        let shown: (value: Value, author: Author)
        switch server {
        case .value(let value, let author): shown = (value, author)
        case .absent(let author): shown = (defaultValue, author)
        case .unknown, .undecodable: return nil
        }
        return Delivery(
            value: shown.value, author: shown.author, generation: generation, version: version,
            localWriteCount: localWriteCount)
    }

    /// The delivery queue is about to carry out `delivery`: returns whether it
    /// may, and if so records it as the last one. It may not when a local write
    /// came after it was decided, when a write is unsent or in flight, or when a
    /// newer delivery was carried out already (the versions shown never go back).
    mutating func deliver(_ delivery: Delivery) -> Bool {
        guard isQuiet, localWriteCount == delivery.localWriteCount else { return false }
        if let delivered, delivery.isOlder(thanGeneration: delivered.generation, version: delivered.version) {
            return false
        }
        delivered = (delivery.generation, delivery.version)
        return true
    }

    // MARK: Local writes

    /// The program changed the `Var`: the new value is to be sent, with a new request id.
    /// The program changed the `Var` to `value`: it is to be sent, with
    /// `requestId` when the offline store keeps the write under one, else with a new id.
    mutating func wroteLocally(_ value: Value? = nil, requestId: String? = nil) {
        if isQuiet { basedOn = version }
        localWriteCount += 1
        hasUnsentWrite = true
        localValue = value
        self.requestId = requestId
    }

    /// Starts from what the offline store kept: the server's value at
    /// `version` (nil: not known), seen on no link yet (so the first link
    /// resumes or replaces it), and the unacknowledged write of a value made on
    /// `basedOn`, if one was kept, to be sent after the first resync with its `requestId`.
    mutating func restored(
        _ remote: Remote?, version: Int64, author: Author, write: (value: Value, requestId: String, basedOn: Int64)?
    ) {
        if let remote {
            self.version = version
            switch remote {
            case .absent: server = .absent(author: author)
            case .value(let value): server = .value(value, author: author)
            case .undecodable: server = .undecodable
            }
        }
        guard let write else { return }
        wroteLocally(write.value, requestId: write.requestId)
        basedOn = write.basedOn
    }

    /// The session ended. A session-bound mirror that wrote before writes its
    /// value again on the next session (the server deleted it); returns whether
    /// it now has an unsent write.
    mutating func sessionEnded(sessionBound: Bool) -> Bool {
        guard sessionBound, localWriteCount > 0, !hasUnsentWrite else { return false }
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
        if isQuiet { forgetLocalWrite() }
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
            if isQuiet { forgetLocalWrite() }
        case .refused:
            writesInFlight -= 1
            if isQuiet { forgetLocalWrite() }
        case .conflicted:
            writesInFlight -= 1
            if isQuiet {
                if !replaced.isEmpty {
                    settled = Conflict(replaced: replaced, written: localValue ?? value, acknowledged: nil)
                }
                forgetLocalWrite()
            }
        case .acknowledged(let acknowledged):
            writesInFlight -= 1
            // The own change's event is no conflict.
            replaced.removeAll { $0.version == acknowledged }
            // The next write under `serverWins` expects this one's version.
            if serverWins { basedOn = max(basedOn, acknowledged) }
            if isQuiet {
                let beaten = replaced.filter { $0.version < acknowledged }
                if !beaten.isEmpty {
                    settled = Conflict(replaced: beaten, written: localValue ?? value, acknowledged: acknowledged)
                }
                forgetLocalWrite()
            }
            if acknowledged > version {
                version = acknowledged
                server = .value(value, author: author)
            }
        }
        return false
    }

    /// The `ifVersion` to send the write with: with ``serverWins`` the version
    /// the writes were made on, so a change by someone else meanwhile makes the
    /// server refuse it; else none.
    var writeCondition: Int64? { serverWins ? basedOn : nil }

    /// No local write is unsent or in flight any more.
    private mutating func forgetLocalWrite() {
        requestId = nil
        localValue = nil
        replaced = []
    }

    /// The conflict settled since the last call, if any; the shell reports it.
    mutating func takeConflict() -> Conflict? {
        defer { settled = nil }
        return settled
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
        let old: Value? =
            switch server {
            case .value(let value, _): value
            case .absent, .unknown, .undecodable: nil
            }
        self.version = version
        var outcome = Outcome()
        var new: Value?
        switch remote {
        case .absent: server = .absent(author: absentAuthor)
        case .value(let value):
            server = .value(value, author: author)
            new = value
        case .undecodable(let detail):
            server = .undecodable
            outcome.undecodable = (version, detail)
        }
        if !isQuiet && version > basedOn {
            replaced.append(ReplacedChange(old: old, new: new, version: version, author: author))
            if serverWins && hasUnsentWrite && writesInFlight == 0 {
                settled = Conflict(replaced: replaced, written: localValue, acknowledged: nil)
                hasUnsentWrite = false
                forgetLocalWrite()
            }
        }
        outcome.show = shown()
        return outcome
    }
}

extension MirrorState.Delivery: Sendable where Value: Sendable, Author: Sendable {}
