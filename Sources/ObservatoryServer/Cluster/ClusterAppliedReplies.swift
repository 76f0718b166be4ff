import ObservatoryWire

/// A cluster node's write replies, each answered once the node's cache applied
/// the write's revision, or `unavailable` when the watch has not brought it
/// within the request timeout.
///
/// Each reply waits on the cache's revision gate with a deadline, the timeout
/// from now; the node's one `RevisionGateTimer` expires the waits whose
/// deadline passed. The gate wakes each wait exactly once, told how it ended,
/// so each reply is answered once and its `finally` (a create releasing its
/// room in the key budget) runs once, whichever came first.
///
/// Thread safety: no state of its own beyond the gate and the timer, which lock their own.
final class ClusterAppliedReplies: Sendable {
    private let gate: RevisionGate
    private let timer: RevisionGateTimer
    /// How long a reply waits for its revision: the node's request timeout.
    let timeout: Duration

    /// Replies that wait on `gate` up to `timeout` each.
    init(gate: RevisionGate, timeout: Duration) {
        self.gate = gate
        self.timeout = timeout
        timer = RevisionGateTimer(gate: gate, label: "observatory.cluster.replies")
    }

    /// Gives `reply` to `answer` once the gate passed `revision` (or closed), or
    /// `unavailable` once the timeout passed first; then runs `finally`. Both
    /// run once, on the thread that ended the wait.
    func answer(
        _ reply: Result<ReplyPayload, WireError>, at revision: Int64,
        _ answer: @escaping @Sendable (Result<ReplyPayload, WireError>) -> Void,
        finally: @escaping @Sendable () -> Void
    ) {
        let deadline = ContinuousClock.now + timeout
        let waits = gate.wait(for: revision, until: deadline) { ending in
            if case .timedOut = ending {
                answer(.failure(Self.notApplied(revision)))
            } else {
                answer(reply)
            }
            finally()
        }
        if waits { timer.arm(for: deadline) }
    }

    /// The reply to a write etcd committed at `revision` that this node has not applied in time.
    static func notApplied(_ revision: Int64) -> WireError {
        WireError(
            code: .unavailable,
            message: "etcd committed the write at revision \(revision), but this node has not "
                + "applied it yet; it cannot answer")
    }
}
