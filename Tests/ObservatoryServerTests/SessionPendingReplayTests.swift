import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A store whose resumes are answered later, by the test, as a cluster node
/// answers a resume from before its own history.
private final class LaterResumingState: SharedState {
    let store = SharedStore(maxKeys: 100)
    let replays = Locked<[PendingReplay]>([])

    var epoch: String { store.epoch }
    var revision: Int64 { store.revision }
    var gate: RevisionGate { store.gate }

    func apply(_ write: Write, by author: Author) throws(WireError) -> WriteReply {
        try store.apply(write, by: author)
    }

    func applyBatch(_ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author)
        throws(WireError)
        -> WriteReply
    {
        try store.applyBatch(operations, requestId: requestId, by: author)
    }

    func get(_ key: String) -> RawValueEntry? { store.get(key) }

    func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool
    ) -> (keys: [KeyVersion], more: Bool) {
        store.list(prefix: prefix, after: after, limit: limit, where: isIncluded)
    }

    func observe<Failure: Error>(
        _ target: Target, from resumePoint: ResumePoint?, by observer: some Observer,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool, receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> ObservationStart {
        var start = try store.observe(target, by: observer, subscribe: subscribe, receive: receive)
        if let resumePoint {
            let replay = PendingReplay(after: resumePoint.revision)
            replays.withLock { $0.append(replay) }
            start.pendingReplay = replay
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

/// A session waits for a resume answered later as for a write answered later.
@Suite struct SessionPendingReplayTests {
    @Test func noFrameIsAnsweredBeforeTheResumeAndItsReplayAreKnown() throws {
        let configuration = testConfiguration()
        let state = LaterResumingState()
        let environment = SessionEnvironment(
            state: state, authenticator: Authenticator(auth: configuration.auth, logger: .silent),
            sessionNumbers: SessionNumbers(after: 0, storage: nil, logger: .silent),
            limits: SessionEnvironment.Limits(configuration.limits), logger: .silent)
        let output = ConnectionOutput(maxQueuedBytes: 100_000, maxObservations: 10)
        let session = Session(environment: environment, output: output)
        session.receive(
            Array(
                (#"{"op":"observe","prefix":"sky.","fromRevision":0,"id":1}"# + "\n"
                    + #"{"op":"get","key":"sky.a","id":2}"# + "\n").utf8))
        #expect(output.answerFrames(of: session) == .backlogged)
        #expect(try output.drainMessages().isEmpty)

        let writer = Author(name: "bob", session: "sb.1")
        try state.store.set("sky.a", to: 1, by: writer)
        let replay = try #require(state.replays.withLock { $0.first })
        #expect(output.answerFrames(of: session) == .backlogged, "still unknown: the get waits")

        replay.fulfill(replaying: [], through: 0)
        let answered = try output.drainMessages()
        #expect(answered.map { $0["id"] } == [1, nil], "the reply, then the live event")
        #expect(answered.first?["resumed"] == true)
        #expect(output.answerFrames(of: session) == .keepOpen)
        #expect(try output.drainMessages().map { $0["id"] } == [2])
        #expect(environment.metrics.resumesReplayed.current == 1)
    }
}
