import Observatory
import ObservatorySockets
import ObservatoryWire

/// The protocol logic of one connection, without sockets: bytes in, replies and
/// events queued on its `ConnectionOutput`, and whether to close.
///
/// Every complete frame gets exactly one reply, in order, so clients may pipeline.
/// The session observes the store like any `Observer`; its handlers capture only
/// the output, which filters and queues events. While a batch of frames is being
/// answered, events wait (`holdEvents`), so an `observe` reply with its snapshot is
/// queued before any event that arrived while it was being made; and since the store
/// registers the observation and takes the snapshot in one step, no change is lost
/// between them.
///
/// Replies and events together stay within `maxQueuedBytes`: once more than that
/// waits to be sent, the session stops answering (`backlogged`) and keeps the
/// frames it has not answered; the connection stops reading and calls
/// `answerBufferedFrames()` once the client has taken its bytes. So a client that
/// pipelines requests for large values without reading the replies costs one
/// backlog of memory, not one reply per request.
///
/// Not thread-safe: its connection calls it from one queue at a time.
final class Session: Observer {
    /// What the connection should do after a call.
    enum Action: Equatable {
        /// Keep reading.
        case keepOpen
        /// Send what is queued, then close (after `frame_too_large` or a failed `hello`).
        case close
        /// Stop reading: the output holds more than `maxQueuedBytes`. Call
        /// `answerBufferedFrames()` once it has drained.
        case backlogged
    }

    /// The core library's handle on this session's observations.
    let receiver = Receiver()
    /// Where replies and events go.
    let output: ConnectionOutput
    /// Who this connection's changes are attributed to.
    private(set) var identity: Author
    private let context: ServerContext
    private var splitter: FrameSplitter
    /// What this connection may read and write; `nil` when authentication is off.
    private var rights: AccessRights?
    /// Whether a `hello` presented a valid token.
    private var hasToken = false
    private var isClosing = false
    /// Whether this session is subscribed to every change (it observes at least one prefix).
    private var observesPrefixes = false
    /// The changes a resumed `observe` replays, queued right after its reply.
    private var replay: (changes: [StoreChange], route: ObservationSet.Route)?

    /// The client's address, for logs.
    private let peer: String

    /// Creates a session with a fresh session id and the anonymous author.
    init(context: ServerContext, output: ConnectionOutput, peer: String = "unknown") {
        self.context = context
        self.output = output
        self.peer = peer
        let auth = context.configuration.auth
        rights = context.configuration.requiresAuthentication ? auth.anonymous ?? AccessRights() : nil
        splitter = FrameSplitter(maxFrameBytes: context.configuration.limits.maxFrameBytes)
        identity = Author(name: Author.anonymousName, session: context.nextSessionID())
    }

    /// Takes received bytes and answers the complete frames among them, until the
    /// output is backlogged.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Action {
        guard !isClosing else { return .close }
        splitter.append(bytes)
        return answerBufferedFrames()
    }

    /// Answers the complete frames received and not answered yet, as long as the
    /// output holds at most `maxQueuedBytes`.
    func answerBufferedFrames() -> Action {
        guard !isClosing else { return .close }
        output.holdEvents()
        defer { output.releaseEvents() }
        let limit = context.configuration.limits.maxQueuedBytes
        while !isClosing {
            if output.withQueue({ $0.queuedBytes }) > limit { return .backlogged }
            do throws(WireError) {
                guard let frame = try splitter.next() else { break }
                output.append(respond(to: frame))
                if let replay {
                    output.replay(replay.changes, via: replay.route)
                    self.replay = nil
                }
            } catch {
                output.append(Reply.failure(id: nil, error))
                isClosing = true
            }
        }
        return isClosing ? .close : .keepOpen
    }

    /// Whether this connection can do nothing until a `hello` with a token:
    /// authentication is on, it has not presented one, and no `anonymous` rights
    /// are configured. Such connections are closed after the auth timeout.
    var needsHello: Bool {
        context.configuration.requiresAuthentication && !hasToken && context.configuration.auth.anonymous == nil
    }

    /// Bytes received and not answered yet.
    var bufferedByteCount: Int {
        splitter.bufferedByteCount
    }

    /// Takes received bytes from an array (the connection copies each read into one).
    func receive(_ bytes: [UInt8]) -> Action {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Ends every observation, deletes the keys bound to this session, and frees
    /// the input buffer; called once when the connection closes, for any reason.
    func close() {
        isClosing = true
        splitter.releaseBuffer()
        let ended = context.state.endSession(identity.session)
        if let failure = ended.failure {
            context.logger.error(
                "session \(identity.session): its session-bound keys could not all be deleted (\(failure.message)); "
                    + "the next start deletes them")
        }
        let observed = output.observations
        output.updateObservations { $0 = ObservationSet(limit: $0.limit) }
        for key in observed.keys {
            context.state.stopObserving(key: key.text, by: self)
        }
        if observesPrefixes {
            context.state.stopObservingPrefixes(by: self)
            observesPrefixes = false
        }
    }

    private func respond(to frame: [UInt8]) -> Reply {
        let request: Request
        switch Request.decode(frame: frame, limits: context.requestLimits) {
        case .failure(let rejection):
            if Self.namesHello(frame) { isClosing = true }
            return rejection.reply
        case .success(let decoded):
            request = decoded
        }
        do throws(WireError) {
            return .success(id: request.id, try perform(request.operation))
        } catch {
            if request.operation.kind == .hello { isClosing = true }
            return .failure(id: request.id, error)
        }
    }

    /// Whether a rejected frame was a `hello` (a failed hello closes the connection,
    /// also when one of its fields is ill-typed). Parses again, on the error path only.
    private static func namesHello(_ frame: [UInt8]) -> Bool {
        guard let value = try? JSONValue.parse(frame) else { return false }
        return value["op"] == "hello"
    }

    private func perform(_ operation: Operation) throws(WireError) -> ReplyPayload {
        guard !context.isShuttingDown else {
            throw WireError(code: .shuttingDown, message: "the server is shutting down; reconnect later")
        }
        if operation.kind != .hello && needsHello {
            throw WireError(code: .unauthenticated, message: "send hello with a token first")
        }
        let state = context.state
        switch operation {
        case .hello(let name, let token, let protocolVersion):
            return try hello(name: name, token: token, protocolVersion: protocolVersion)
        case .get(let key):
            try checkRead(key)
            guard let entry = state.get(key) else { throw WireError.notFound(key: key) }
            return .get(entry)
        case .set(let key, let value, let ifVersion, let ephemeral, let requestId):
            try checkWrite(key, ifVersion: ifVersion)
            return try state.apply(
                .set(key: key, value: value, ifVersion: ifVersion, sessionBound: ephemeral, requestId: requestId),
                by: identity)
        case .delete(let key, let ifVersion, let requestId):
            try checkWrite(key, ifVersion: ifVersion)
            return try state.apply(.delete(key: key, ifVersion: ifVersion, requestId: requestId), by: identity)
        case .observe(let target, let resumePoint):
            try checkRead(target)
            return try observe(target, from: resumePoint)
        case .unobserve(let target):
            unobserve(target)
            return .unobserve
        case .list(let prefix, let after, let limit):
            let cap = context.configuration.limits.maxListKeys
            let readable = rights?.read
            let page = state.list(prefix: prefix, after: after, limit: min(Int(clamping: limit ?? .max), cap)) {
                readable?.allows($0) ?? true
            }
            return .list(keys: page.keys, more: page.more)
        case .ping:
            // Every change up to `revision` has been handed to this output (the store
            // delivers under the lock it counts revisions with); the events held
            // while this batch is answered go ahead of the reply, so the reply
            // follows every event it vouches for (PROTOCOL.md, "Progress").
            let revision = state.revision
            output.releaseEvents()
            output.holdEvents()
            return .ping(revision: revision, epoch: state.epoch)
        }
    }

    private func hello(name: String?, token: String?, protocolVersion: Int64) throws(WireError) -> ReplyPayload {
        guard protocolVersion == 1 else {
            throw WireError(
                code: .badRequest, message: "protocol \(protocolVersion) is not supported; this server speaks 1")
        }
        var author = name ?? Author.anonymousName
        // Without a token, where anonymous rights are configured, hello keeps them (and sets the name).
        let staysAnonymous = token == nil && !hasToken && context.configuration.auth.anonymous != nil
        if context.configuration.requiresAuthentication && !staysAnonymous {
            guard let token, let entry = context.accessToken(token) else {
                context.logFailedHello(from: peer, token == nil ? "no token" : "unknown token")
                throw WireError(code: .unauthenticated, message: "missing or unknown token; the connection is closed")
            }
            rights = entry.rights
            hasToken = true
            author = entry.author
            endObservationsNoLongerAllowed()
        }
        identity = Author(name: author, session: identity.session)
        return .hello(
            server: Server.version, protocolVersion: 1, session: identity.session, author: author,
            revision: context.state.revision, epoch: context.state.epoch)
    }

    /// Observes `target`, or resumes it after `resumePoint`. The target joins the
    /// observation set under the store's lock, in the step that takes the snapshot
    /// or the replay, so no change reaches this session twice or not at all.
    private func observe(_ target: Target, from resumePoint: ResumePoint?) throws(WireError) -> ReplyPayload {
        let route: ObservationSet.Route =
            switch target {
            case .key: .key
            case .prefix: .prefix
            }
        let output = self.output
        let observation = try context.state.observe(target, from: resumePoint, by: self) { () throws(WireError) in
            let isNew = try output.updateObservations { observations throws(WireError) in try observations.add(target) }
            guard route == .prefix else { return isNew }
            defer { observesPrefixes = true }
            return !observesPrefixes
        } receive: { change in
            output.deliver(change, via: route)
        }
        guard resumePoint != nil else { return .observe(values: observation.values, revision: observation.revision) }
        guard let changes = observation.replay else {
            return .observe(values: observation.values, revision: observation.revision, resumed: false)
        }
        replay = (changes, route)
        return .observe(values: [], revision: observation.revision, resumed: true)
    }

    private func unobserve(_ target: Target) {
        let wasObserved = output.updateObservations { $0.remove(target) }
        guard wasObserved else { return }
        switch target {
        case .key(let key):
            context.state.stopObserving(key: key, by: self)
        case .prefix:
            guard output.observations.prefixes.isEmpty else { return }
            context.state.stopObservingPrefixes(by: self)
            observesPrefixes = false
        }
    }

    /// A token's rights replace the anonymous ones: observations they do not
    /// allow end, so that no event about a key the token may not read arrives.
    private func endObservationsNoLongerAllowed() {
        guard let readable = rights?.read else { return }
        let observed = output.observations
        for key in observed.keys where !readable.allows(key.text) {
            unobserve(.key(key.text))
        }
        for prefix in observed.prefixes where !readable.allowsEveryKey(withPrefix: prefix.text) {
            unobserve(.prefix(prefix.text))
        }
    }

    private func checkRead(_ key: String) throws(WireError) {
        guard let rights, !rights.read.allows(key) else { return }
        throw denied("read \"\(key)\"")
    }

    private func checkRead(_ target: Target) throws(WireError) {
        switch target {
        case .key(let key):
            try checkRead(key)
        case .prefix(let prefix):
            guard let rights, !rights.read.allowsEveryKey(withPrefix: prefix) else { return }
            throw denied("read every key under \"\(prefix)\" (observing a prefix needs a rule such as \"\(prefix)*\")")
        }
    }

    /// A conditional write also needs read access: its `conflict` reply tells
    /// whether the key exists and its version.
    private func checkWrite(_ key: String, ifVersion: Int64?) throws(WireError) {
        if let rights, !rights.write.allows(key) {
            throw denied("write \"\(key)\"")
        }
        guard ifVersion != nil else { return }
        try checkRead(key)
    }

    /// `forbidden` for a token's connection; `unauthenticated` before a `hello`
    /// with a token, since one might grant what the anonymous rights do not.
    private func denied(_ action: String) -> WireError {
        guard hasToken else {
            return WireError(
                code: .unauthenticated, message: "anonymous connections may not \(action); send hello with a token")
        }
        return WireError(code: .forbidden, message: "this token may not \(action)")
    }
}
