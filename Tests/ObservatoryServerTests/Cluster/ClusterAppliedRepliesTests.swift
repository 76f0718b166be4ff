import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A cluster node's write replies (`ClusterAppliedReplies`), without etcd: the
/// revision gate stands for the cache, the test advances it as the watch would.
@Suite struct ClusterAppliedRepliesTests {
    private let reply: Result<ReplyPayload, WireError> = .success(.set(key: "a", version: 5, changed: true))

    /// The answers given and how often `finally` ran, with a budget whose room `finally` releases.
    private final class Outcome: Sendable {
        let answers = Locked<[Result<ReplyPayload, WireError>]>([])
        let releases = Locked(0)
        let budget = ClusterKeyBudget(maxKeys: 1)
        let cache = SharedStore(replicating: [], at: 0, epoch: "e", historyChanges: 10)

        func answer(_ answer: Result<ReplyPayload, WireError>) { answers.withLock { $0.append(answer) } }

        func release() {
            budget.release("a")
            releases.withLock { $0 += 1 }
        }
    }

    @Test func aWriteWhoseRevisionNeverArrivesIsAnsweredUnavailableOnceAndReleasesItsRoomOnce() throws {
        let gate = RevisionGate(reached: 0)
        let replies = ClusterAppliedReplies(gate: gate, timeout: .milliseconds(50))
        let outcome = Outcome()
        #expect(outcome.budget.reserve("a", in: outcome.cache) { (0, 0) })
        replies.answer(reply, at: 5, outcome.answer, finally: outcome.release)
        try waitUntil("the reply timed out", timeout: .seconds(10)) { outcome.releases.withLock { $0 } > 0 }
        // The revision arrives late, then the node closes: neither answers again.
        gate.advance(to: 5).run()
        gate.close().run()
        gate.expire(at: .now + .seconds(3_600)).wakeup.run()
        #expect(outcome.answers.withLock { $0 } == [.failure(ClusterAppliedReplies.notApplied(5))])
        #expect(outcome.releases.withLock { $0 } == 1)
        #expect(outcome.budget.reserve("a", in: outcome.cache) { (0, 0) }, "the room is free again")
    }

    @Test func aWriteWhoseRevisionArrivesInTimeIsAnsweredWithItsReplyAndNeverTimesOut() {
        let gate = RevisionGate(reached: 0)
        let replies = ClusterAppliedReplies(gate: gate, timeout: .seconds(3_600))
        let outcome = Outcome()
        replies.answer(reply, at: 5, outcome.answer, finally: outcome.release)
        #expect(outcome.answers.withLock { $0 }.isEmpty)
        gate.advance(to: 5).run()
        gate.expire(at: .now + .seconds(7_200)).wakeup.run()
        #expect(outcome.answers.withLock { $0 } == [reply])
        #expect(outcome.releases.withLock { $0 } == 1)
    }

    @Test func theTimeoutsMessageNamesTheRevisionAndSaysTheNodeCannotAnswer() {
        let error = ClusterAppliedReplies.notApplied(7)
        #expect(error.code == .unavailable)
        #expect(
            error.message
                == "etcd committed the write at revision 7, but this node has not applied it yet; it cannot answer")
    }
}
