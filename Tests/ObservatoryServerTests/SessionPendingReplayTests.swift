import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A store whose resumes (and, when `writesLater`, writes) are answered later,
/// by the test, as a cluster node answers a resume from before its own history
/// or a write etcd decides. It keeps the reply slots it was given; the test
/// carries each answer to the session as the connection's loop does.
private final class LaterAnsweringState: SharedState {
    let store = SharedStore(maxKeys: 100)
    let slots = Locked<[ReplySlot]>([])
    let writesLater: Bool

    init(writesLater: Bool = false) {
        self.writesLater = writesLater
    }

    var epoch: String { store.epoch }
    var revision: Int64 { store.revision }
    var gate: RevisionGate { store.gate }

    func apply(_ write: Write, by author: Author, answering slot: ReplySlot) throws(WireError) -> WriteReply {
        guard writesLater else { return try store.apply(write, by: author) }
        slots.withLock { $0.append(slot) }
        return .pending(slot)
    }

    func applyBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) throws(WireError) -> WriteReply {
        try store.applyBatch(operations, requestId: requestId, by: author)
    }

    func get(_ key: String) -> RawValueEntry? { store.get(key) }

    func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool
    ) -> (keys: [KeyVersion], more: Bool) {
        store.list(prefix: prefix, after: after, limit: limit, where: isIncluded)
    }

    func observe<Failure: Error>(
        _ target: Target, from resumePoint: ResumePoint?, by observer: some Observer, answering slot: ReplySlot,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool, receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> ObservationStart {
        var start = try store.observe(target, by: observer, subscribe: subscribe, receive: receive)
        if resumePoint != nil {
            slots.withLock { $0.append(slot) }
            start.pending = slot
        }
        return start
    }

    func history(_ query: HistoryQuery, maxBytes: Int, where isIncluded: (String) -> Bool) -> HistoryPage {
        store.history(query, maxBytes: maxBytes, where: isIncluded)
    }

    func stopObserving(key: String, by observer: some Observer) { store.stopObserving(key: key, by: observer) }
    func stopObservingPrefixes(by observer: some Observer) { store.stopObservingPrefixes(by: observer) }
    func endSession(_ session: String) -> (deleted: Int, failure: WireError?) { store.endSession(session) }
    func expireDue(now: Int64, limit: Int) -> (expired: Int, failure: WireError?) {
        store.expireDue(now: now, limit: limit)
    }
    func close() {}
}

/// A session waits for an answer given later (a resume's, a write's) before it
/// answers the next frame, and takes each slot's first answer only.
@Suite struct SessionPendingReplayTests {
    private func session(on state: LaterAnsweringState) -> (Session, ConnectionOutput, SessionEnvironment) {
        let configuration = testConfiguration()
        let environment = SessionEnvironment(
            state: state, authenticator: Authenticator(auth: configuration.auth, logger: .silent),
            sessionNumbers: SessionNumbers(after: 0, storage: nil, logger: .silent),
            limits: SessionEnvironment.Limits(configuration.limits), logger: .silent)
        let output = ConnectionOutput(maxQueuedBytes: 100_000, maxObservations: 10)
        return (Session(environment: environment, output: output), output, environment)
    }

    @Test func noFrameIsAnsweredBeforeTheResumeAndItsReplayAreKnown() throws {
        let state = LaterAnsweringState()
        let (session, output, environment) = session(on: state)
        session.receive(
            Array(
                (#"{"op":"observe","prefix":"sky.","fromRevision":0,"id":1}"# + "\n"
                    + #"{"op":"get","key":"sky.a","id":2}"# + "\n").utf8))
        #expect(output.answerFrames(of: session) == .backlogged)
        #expect(try output.drainMessages().isEmpty)

        let writer = Author(name: "bob", session: "sb.1")
        try state.store.set("sky.a", to: 1, by: writer)
        let slot = try #require(state.slots.withLock { $0.first })
        #expect(output.answerFrames(of: session) == .backlogged, "still unknown: the get waits")

        #expect(session.receive(.replay([], through: 0), into: slot.number))
        let answered = try output.drainMessages()
        #expect(answered.map { $0["id"] } == [1, nil], "the reply, then the live event")
        #expect(answered.first?["resumed"] == true)
        #expect(output.answerFrames(of: session) == .keepOpen)
        #expect(try output.drainMessages().map { $0["id"] } == [2])
        #expect(environment.metrics.resumesReplayed.current == 1)
    }

    @Test func aWriteAnsweredLaterIsRepliedInItsPlaceAndALateSecondAnswerIsIgnored() throws {
        let state = LaterAnsweringState(writesLater: true)
        let (session, output, environment) = session(on: state)
        session.receive(
            Array(
                (#"{"op":"set","key":"a","value":1,"id":1}"# + "\n" + #"{"op":"set","key":"b","value":2,"id":2}"#
                    + "\n").utf8))
        #expect(output.answerFrames(of: session) == .backlogged)
        let first = try #require(state.slots.withLock { $0.first })
        #expect(try output.drainMessages().isEmpty)

        #expect(session.receive(.reply(.success(.set(key: "a", version: 5, changed: true))), into: first.number))
        #expect(try output.drainMessages().map { $0["version"] } == [5])
        #expect(environment.metrics.changes.current == 1)
        #expect(output.answerFrames(of: session) == .backlogged, "the second write waits for its own answer")
        let second = try #require(state.slots.withLock { $0.last })
        #expect(second.number != first.number)

        let late = ReplySlot.Answer.reply(.failure(WireError(code: .unavailable, message: "too late")))
        #expect(!session.receive(late, into: first.number), "the first slot was answered already")
        #expect(try output.drainMessages().isEmpty)
        #expect(session.receive(.reply(.success(.set(key: "b", version: 6, changed: true))), into: second.number))
        #expect(try output.drainMessages().map { $0["id"] } == [2])
        #expect(environment.metrics.changes.current == 2)
    }
}
