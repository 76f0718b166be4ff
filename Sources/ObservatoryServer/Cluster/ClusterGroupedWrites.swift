import Dispatch
import Observatory
import ObservatoryEtcd

/// Sends a node's writes to etcd in groups, as `ClusterWriteGroups` decides:
/// each group is one etcd transaction nesting its writes' transactions, and each
/// write gets its own transaction's answer back.
///
/// A group's HTTP exchange never runs on an event loop: a group of one write
/// runs on its writer's thread (the session's write queue, `ClusterState.perform`,
/// which waits for it anyway), a group sent when another ends runs on the serial
/// queue of its slot; so the node's threads follow the sessions writing and the
/// groups in flight, not the sessions connected. A group that etcd refuses as a whole without applying
/// any of it (a lease of one write that just expired, say) is sent again one
/// write at a time, so one write's fault stays its own.
///
/// Thread safety: the machine and the writes' answers-to-be are in one `Locked`
/// box, held only to feed the machine or take a write's transaction, never
/// while etcd is asked or a writer is woken.
final class ClusterGroupedWrites: Sendable {
    private typealias Answer = @Sendable (Result<EtcdTransactionResult, EtcdError>) -> Void

    private struct State {
        var machine: ClusterWriteGroups
        var sent: [Int: (transaction: EtcdTransaction, answer: Answer)] = [:]
        var nextID = 0
    }

    private let state: Locked<State>
    private let client: EtcdClient
    private let slots: [DispatchQueue]

    /// Groups over `client`, with the machine's limits.
    init(client: EtcdClient, groups: ClusterWriteGroups = ClusterWriteGroups()) {
        self.client = client
        state = Locked(State(machine: groups))
        slots = (0..<groups.maximumGroups).map { _ in DispatchQueue(label: "observatory.cluster.write-group") }
    }

    /// A new write's identifier, which holds its keys' turns from its first
    /// `run` until `finish`.
    func begin() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Runs `transaction` for write `id`, in a group with other writes, once
    /// `keys` are this write's turn; blocks the calling thread (a session's write
    /// queue, never an event loop) until etcd answered.
    ///
    /// - Returns: the write's own transaction's answer, with the group's header.
    func run(_ transaction: EtcdTransaction, for id: Int, keys: [String]) throws(EtcdError) -> EtcdTransactionResult {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<EtcdTransactionResult, EtcdError>?>(nil)
        let submission = ClusterWriteGroups.Submission(id: id, keys: keys, bytes: Self.bytes(of: transaction))
        let actions = state.withLock { state in
            state.sent[id] = (
                transaction,
                { result in
                    outcome.withLock { $0 = result }
                    done.signal()
                }
            )
            return state.machine.submit(submission)
        }
        perform(actions, here: id)
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw EtcdError.invalidResponse("the write's group ended without an answer")
        }
        return try result.get()
    }

    /// Write `id` is decided: the next writes of its keys may go.
    func finish(_ id: Int) {
        perform(state.withLock { $0.machine.finished(id) })
    }

    /// Sends the groups of `actions`: one that holds only write `here` on this
    /// thread (its writer waits for it anyway), the others on their slots' queues.
    private func perform(_ actions: [ClusterWriteGroups.Action], here: Int? = nil) {
        for case .send(let slot, let ids) in actions {
            let writes = state.withLock { state in ids.compactMap { state.sent.removeValue(forKey: $0) } }
            if let here, ids == [here] {
                deliver(writes, in: slot)
            } else {
                slots[slot].async { [self] in deliver(writes, in: slot) }
            }
        }
    }

    /// Sends one group, frees its slot and hands each write its answer.
    private func deliver(_ writes: [(transaction: EtcdTransaction, answer: Answer)], in slot: Int) {
        let answers = send(writes.map(\.transaction))
        perform(state.withLock { $0.machine.answered(slot: slot) })
        for (write, answer) in zip(writes, answers) { write.answer(answer) }
    }

    /// Each write's answer to one group of `transactions`.
    func send(_ transactions: [EtcdTransaction]) -> [Result<EtcdTransactionResult, EtcdError>] {
        guard transactions.count > 1 else {
            return transactions.map { transaction in
                Result { () throws(EtcdError) in try client.transaction(transaction) }
            }
        }
        let group = EtcdTransaction(success: transactions.map { .transaction($0) })
        do throws(EtcdError) {
            let result = try client.transaction(group)
            return try Self.split(result, count: transactions.count).map { .success($0) }
        } catch  where !error.mayHaveBeenApplied && error.code != .unavailable && error.code != .invalidResponse {
            // etcd refused the whole group and applied none of it: each write alone.
            return transactions.flatMap { send([$0]) }
        } catch {
            return Array(repeating: .failure(error), count: transactions.count)
        }
    }

    /// The nested transactions' answers of a group's `result`, each with the group's header.
    static func split(_ result: EtcdTransactionResult, count: Int) throws(EtcdError) -> [EtcdTransactionResult] {
        var answers: [EtcdTransactionResult] = []
        for response in result.responses {
            guard case .transaction(let nested) = response else { break }
            answers.append(
                EtcdTransactionResult(header: result.header, succeeded: nested.succeeded, responses: nested.responses))
        }
        guard result.succeeded, answers.count == count else {
            throw EtcdError.unavailable(
                "etcd answered a group of \(count) writes with \(result.responses.count) answers",
                mayHaveBeenApplied: true)
        }
        return answers
    }

    /// The bytes `transaction` puts.
    private static func bytes(of transaction: EtcdTransaction) -> Int {
        transaction.success.reduce(0) { total, operation in
            guard case .put(let key, let value, _, _) = operation else { return total }
            return total + key.count + value.count
        }
    }
}
