import Observatory
import ObservatoryWire

/// The protocol logic of one session, without sockets: bytes in, one answer
/// per complete frame queued on its output, and whether to go on.
///
/// Every complete frame gets exactly one reply, in order, so clients may pipeline.
/// The connection feeds received bytes to `receive(_:)` (or, from its read buffer,
/// to `receiveInPlace(_:)`, then `keepUnansweredInput()`) and asks for answers with
/// `nextAnswer(queuedBytes:)` until there are none, each queued on its output
/// (`ConnectionOutput.answerFrames(of:)`); events wait meanwhile, so an
/// `observe` reply with its snapshot is queued before any event that arrived while
/// it was being made; and since the state registers the observation and takes the
/// snapshot in one step, no change is lost between them.
///
/// The session observes the state like any `Observer`; its handlers capture only
/// the output, which filters and queues events (the one thing that cannot wait
/// for an answer: changes arrive on the writer's thread).
///
/// Replies and events together stay within `maxQueuedBytes`: once more than that
/// waits to be sent, the session stops answering (`backlogged`) and keeps the
/// frames it has not answered; the connection stops reading and asks again once
/// the client has taken its bytes. So a client that pipelines requests for large
/// values without reading the replies costs one backlog of memory, not one reply
/// per request.
///
/// Not thread-safe: its connection calls it from one thread at a time. Its variables, changed by that thread
/// alone and never while a call that reads them runs, are not checked for exclusivity at run time (callgrind).
///
/// Its twenty stored properties are the splitter (with the bytes answered in place and whether the frame
/// answered is its last), the author and rights, the per-request settings it keeps at hand (read once instead
/// of through its environment on every request: callgrind), what it knows of its output (whether events may
/// come, the bytes queued) and the batch's state.
final class Session: Observer {
    /// The core library's handle on this session's observations.
    let receiver = Receiver()
    /// Where events go, filtered by the observations it keeps.
    let output: ConnectionOutput
    /// Who this session's changes are attributed to.
    @exclusivity(unchecked) private(set) var identity: Author
    let environment: SessionEnvironment
    /// The environment's state, kept here: read at every request.
    let state: any SharedState
    /// The server's metrics, kept here: counted at every request.
    private let metrics: ServerMetrics
    /// Whether nothing but `hello` works without a token (fixed by the configuration; read at every request).
    private let requiresToken: Bool
    /// How much may wait to be sent before this session stops answering.
    let maxQueuedBytes: Int
    @exclusivity(unchecked) var splitter: FrameSplitter
    /// What is left of received bytes answered where they lie (`receiveInPlace(_:)`).
    @exclusivity(unchecked) var inPlace = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// Whether the frame being answered is the last one held (no byte left after it).
    @exclusivity(unchecked) private var answersLastFrame = false
    /// What this session may read and write; `nil` when authentication is off.
    @exclusivity(unchecked) private(set) var rights: AccessRights?
    /// Whether a `hello` presented a valid token.
    @exclusivity(unchecked) private(set) var hasToken = false
    /// Set after a frame that ends the session: no further frame is answered.
    @exclusivity(unchecked) private(set) var isClosing = false
    /// Whether this session is subscribed to every change (it observes at least one prefix).
    @exclusivity(unchecked) var observesPrefixes = false
    /// The reply slots: while a write or a resuming `observe` is answered later,
    /// no further frame is answered until its answer is in (`receive(_:into:)`),
    /// so that the next request sees the write (as it would on the local store),
    /// and a connection has one replay in flight at most.
    @exclusivity(unchecked) private var slots = ReplySlots()
    /// Whether events may reach the output: set for good by the first `observe`, which
    /// holds them while frames are answered. Until then only this session's loop
    /// changes the output, so answering takes no lock to hold events (callgrind:
    /// about 80 instructions a read) and counts on `queuedBytesBound`.
    @exclusivity(unchecked) var mayReceiveEvents = false
    /// At least the bytes queued on the output while `mayReceiveEvents` is false
    /// (what the last answer left, and flushes only take bytes away); `.max` when
    /// unknown, after something else queued.
    @exclusivity(unchecked) var queuedBytesBound = Int.max
    /// The answer being built: `perform` marks a ping, a replay or a pending one on it.
    @exclusivity(unchecked) var answer = (
        releasesEventsFirst: false, replay: Replay?.none,
        pending: (slot: Int, resumeRevision: Int64, route: ObservationSet.Route)?.none
    )

    /// The client's address, for logs.
    private let peer: String

    /// Creates a session with a fresh session id and the anonymous author.
    init(environment: SessionEnvironment, output: ConnectionOutput, peer: String = "unknown") {
        self.environment = environment
        state = environment.state
        metrics = environment.metrics
        requiresToken = environment.authenticator.requiresToken
        maxQueuedBytes = environment.limits.maxQueuedBytes
        self.output = output
        self.peer = peer
        let authenticator = environment.authenticator
        rights = authenticator.requiresAuthentication ? authenticator.auth.anonymous ?? AccessRights() : nil
        splitter = FrameSplitter(maxFrameBytes: environment.limits.maxFrameBytes)
        identity = Author(name: Author.anonymousName, session: environment.sessionNumbers.next())
    }

    /// Takes received bytes; their complete frames are answered by `nextAnswer`.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosing else { return }
        splitter.append(bytes)
    }

    /// Answers the next complete frame and queues the answer on the output, unless
    /// more than `maxQueuedBytes` wait to be sent (`queuedBytes`, the output's
    /// count) or the session is closing.
    func nextAnswer(queuedBytes: Int) -> Step {
        guard !isClosing else { return .finished }
        if queuedBytes > maxQueuedBytes { return .backlogged }
        // Answered again once the queue drained, which it does after the reply went out.
        if slots.isAwaiting { return .backlogged }
        do throws(WireError) {
            if !inPlace.isEmpty, let frame = try nextFrameInPlace() {
                // The splitter holds nothing while frames are answered in place.
                answersLastFrame = inPlace.isEmpty
                return respond(to: frame)
            }
            guard let frame = try splitter.nextFrame() else { return .finished }
            answersLastFrame = splitter.bufferedByteCount == 0
            // Decoded where it lies, the splitter borrowed, not copied: `respond` leaves it alone.
            return splitter.withFrameBytes(of: frame) { respond(to: $0) }
        } catch {
            answersLastFrame = splitter.bufferedByteCount == 0 && inPlace.isEmpty
            isClosing = true
            return queue(.line(Reply.failure(id: nil, error).encodedLine()))
        }
    }

    /// Queues `content` on the output, after the events held if `perform` marked
    /// a ping, and a resumed `observe`'s replay right behind it. The answer to
    /// the last frame held (no byte is left after it) lets the events held go
    /// behind it under the same lock: nothing else is answered before more input.
    private func queue(_ content: Answer) -> Step {
        defer { answer = (false, nil, nil) }
        guard let replay = answer.replay else {
            let releases = answersLastFrame
            let queued = output.queue(
                content, releasingEventsFirst: answer.releasesEventsFirst, releasingEventsAfter: releases)
            queuedBytesBound = queued
            return .answered(queuedBytes: queued, releasedEvents: releases)
        }
        _ = output.queue(content, releasingEventsFirst: answer.releasesEventsFirst, releasingEventsAfter: false)
        output.replay(replay.changes, via: replay.route)
        queuedBytesBound = output.withQueue { $0.queuedBytes }
        return .answered(queuedBytes: queuedBytesBound, releasedEvents: false)
    }

    /// Queues the success of a write (which marks nothing on the answer) from the
    /// payload the store made, as `queue(_:)` would queue it: no answer wraps it
    /// on the way (callgrind: copying and destroying one cost about 300 instructions a `set`).
    private func queueWritten(_ payload: ReplyPayload, id: RequestID?) -> Step {
        let releases = answersLastFrame
        let queued = output.queueWritten(payload, id: id, releasingEventsAfter: releases)
        queuedBytesBound = queued
        return .answered(queuedBytes: queued, releasedEvents: releases)
    }

    /// Whether this session can do nothing until a `hello` with a token:
    /// authentication is on, it has not presented one, and no `anonymous` rights
    /// are configured. Such connections are closed after the auth timeout.
    var needsHello: Bool {
        requiresToken && !hasToken
    }

    /// The memory unfinished input holds: the input buffer's capacity (what was
    /// allocated, which can be twice what was received) while a frame is
    /// unfinished, else nothing (an idle buffer is small, see `FrameSplitter`).
    var unfinishedInputByteCount: Int {
        (splitter.bufferedByteCount > 0 ? splitter.retainedByteCount : 0) + inPlace.count
    }

    /// Ends every observation, deletes the keys bound to this session, and frees
    /// the input buffer; called once when the connection closes, for any reason.
    func close() {
        isClosing = true
        inPlace = UnsafeBufferPointer(start: nil, count: 0)
        splitter.releaseBuffer()
        let ended = state.endSession(identity.session)
        environment.metrics.changes.add(ended.deleted)
        if let failure = ended.failure {
            environment.logger.error(
                "session \(identity.session): its session-bound keys could not all be deleted (\(failure.message)); "
                    + "the next start deletes them")
        }
        let observed = output.observations
        output.updateObservations { $0 = ObservationSet(limit: $0.limit) }
        for key in observed.keys {
            state.stopObserving(key: key.text, by: self)
        }
        if observesPrefixes {
            state.stopObservingPrefixes(by: self)
            observesPrefixes = false
        }
    }

    private func respond(to frame: UnsafeBufferPointer<UInt8>) -> Step {
        let decoded = Request<EncodedJSON>.decode(frame: frame, limits: environment.limits.request)
        switch consume decoded {
        case .failure(let rejection):
            if Self.namesHello(frame) { isClosing = true }
            if case .failure(_, let error) = rejection.reply { environment.metrics.countError(error.code) }
            return queue(.line(rejection.reply.encodedLine()))
        case .success(let request):
            // Answered where the decoded request lies: a copy of it out of the result
            // cost a second destroy through its type's metadata (callgrind: about 200).
            // The result is consumed, its request moved into `respond(to:)`: destroying
            // the whole result went through `Result`'s metadata (about 20 more a `set`).
            return respond(to: request)
        }
    }

    /// Performs `request` and queues its answer.
    private func respond(to request: consuming Request<EncodedJSON>) -> Step {
        let kind = request.kind
        metrics.countRequest(kind)
        do throws(WireError) {
            switch try perform(request.operation, kind: kind, id: request.id) {
            case .answered(let content):
                // A resuming `observe` a cluster answers later: its reply waits in the output.
                guard let pending = answer.pending else { return queue(content) }
                slots.await(pending.slot, counting: .resume)
                return queue(
                    .pendingObservation(
                        slot: pending.slot, resumeRevision: pending.resumeRevision, id: request.id,
                        route: pending.route))
            case .written(.ready(.set(let key, let version, let changed, let duplicate)), _):
                // A set's success matched here and handed on as its fields: its payload, a
                // generic enum, was destroyed through its type's metadata (callgrind: about 90).
                if changed == true && !duplicate { metrics.changes.add() }
                let releases = answersLastFrame
                queuedBytesBound = output.queueWrittenSet(
                    key: key, version: version, changed: changed, duplicate: duplicate, id: request.id,
                    releasingEventsAfter: releases)
                return .answered(queuedBytes: queuedBytesBound, releasedEvents: releases)
            case .written(.ready(let payload), _):
                metrics.countChange(payload)
                return queueWritten(payload, id: request.id)
            case .written(.pending(let slot), let counting):
                // A write a cluster answers later: counted once its answer is in.
                slots.await(slot.number, counting: counting)
                return queue(.pendingWrite(slot: slot.number, id: request.id))
            }
        } catch {
            metrics.countError(error.code)
            if kind == .hello { isClosing = true }
            return queue(.line(Reply.failure(id: request.id, error).encodedLine()))
        }
    }

    /// The reply slot the state answers into if it answers this request later.
    var replySlot: ReplySlot {
        ReplySlot(output: output, number: slots.next)
    }

    /// The answer to reply slot `slot` is in (on the connection's loop): counts it,
    /// fills its slot in the output, and answers frames again once that drained.
    /// `false`, doing nothing, for a slot not awaited (a late second answer).
    func receive(_ answer: ReplySlot.Answer, into slot: Int) -> Bool {
        guard !isClosing, let counting = slots.receive(slot) else { return false }
        queuedBytesBound = .max
        counting.count(answer, in: metrics)
        return output.fill(slot, with: answer)
    }

    /// Performs one operation (of this `kind`) of request `id`; only writes may be answered later.
    private func perform(_ operation: Operation<EncodedJSON>, kind: OperationKind, id: RequestID?) throws(WireError)
        -> Performed
    {
        guard !environment.isShuttingDown else {
            throw WireError(code: .shuttingDown, message: "the server is shutting down; reconnect later")
        }
        if kind != .hello && needsHello {
            throw WireError(code: .unauthenticated, message: "send hello with a token first")
        }
        let ready = { (payload: ReplyPayload) in Performed.answered(.line(Reply.success(id: id, payload).encodedLine()))
        }
        switch operation {
        case .hello(let name, let token, let protocolVersion):
            return ready(try hello(name: name, token: token, protocolVersion: protocolVersion))
        case .get(let key):
            try checkRead(key)
            guard let entry = state.get(key) else { throw WireError.notFound(key: key) }
            return .answered(.line(RawReply.success(id: id, .get(entry)).encodedLine()))
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl):
            try checkWrite(key, ifVersion: ifVersion)
            return .written(
                try state.apply(
                    .set(
                        key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId,
                        ttl: ttl),
                    by: identity, answering: replySlot),
                .change)
        case .delete(let key, let ifVersion, let requestId):
            try checkWrite(key, ifVersion: ifVersion)
            return .written(
                try state.apply(
                    .delete(key: key, ifVersion: ifVersion, requestId: requestId), by: identity, answering: replySlot),
                .change)
        case .observe(let target, let resumePoint, let slow):
            try checkRead(target)
            return .answered(.line(try observe(target, from: resumePoint, slow: slow, id: id).encodedLine()))
        case .unobserve(let target):
            unobserve(target)
            return ready(.unobserve)
        case .list(let prefix, let after, let limit):
            let cap = environment.limits.maxListKeys
            let readable = rights?.read
            let page = state.list(prefix: prefix, after: after, limit: min(Int(clamping: limit ?? .max), cap)) {
                readable?.allows($0) ?? true
            }
            return ready(.list(keys: page.keys, more: page.more))
        case .history(let query):
            try checkRead(query.target)
            let readable = rights?.read
            let page = state.history(query, maxBytes: environment.limits.maxFrameBytes) {
                readable?.allows($0) ?? true
            }
            return .answered(.line(page.reply(id: id).encodedLine()))
        case .ping:
            // Every change up to `revision` has been handed to this output (the store
            // counts the revisions whose deliveries are done); the events held
            // while this batch is answered go ahead of the reply, so the reply
            // follows every event it vouches for (docs/protocol.md, "Progress").
            let revision = state.revision
            answer.releasesEventsFirst = true
            return ready(.ping(revision: revision, epoch: state.epoch))
        case .batch(let operations, let requestId):
            return .written(try applyBatch(operations, requestId: requestId), .batch(operations))
        }
    }

    /// Applies a batch and counts its changes (a cluster's once its answer is in: `receive(_:into:)`).
    private func applyBatch(_ operations: [BatchOperation<EncodedJSON>], requestId: String?) throws(WireError)
        -> WriteReply
    {
        try checkRights(of: operations)
        let reply = try state.applyBatch(operations, requestId: requestId, by: identity, answering: replySlot)
        if case .ready(.batch(_, let results, false)) = reply {
            environment.metrics.countChanges(of: operations, results)
        }
        return reply
    }

    private func hello(name: String?, token: String?, protocolVersion: Int64) throws(WireError) -> ReplyPayload {
        guard protocolVersion == 1 else {
            throw WireError(
                code: .badRequest, message: "protocol \(protocolVersion) is not supported; this server speaks 1")
        }
        var author = name ?? Author.anonymousName
        // Without a token, where anonymous rights are configured, hello keeps them (and sets the name).
        let authenticator = environment.authenticator
        let staysAnonymous = token == nil && !hasToken && authenticator.auth.anonymous != nil
        if authenticator.requiresAuthentication && !staysAnonymous {
            guard let token, let entry = authenticator.accessToken(token) else {
                authenticator.logFailedHello(from: peer, token == nil ? "no token" : "unknown token")
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
            revision: state.revision, epoch: state.epoch)
    }
}
