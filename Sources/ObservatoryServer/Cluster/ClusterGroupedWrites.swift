import Observatory
import ObservatoryEtcd

/// Sends a node's writes to etcd in groups, as `ClusterWriteGroups` decides:
/// each group is one etcd transaction nesting its writes' transactions, and each
/// write gets its own transaction's answer back.
///
/// No thread waits for a group: each goes out through the etcd client's calls
/// with a completion, which answer on the client's one thread of exchanges, so
/// the node's threads do not follow the writes in flight nor the sessions
/// writing. A group that etcd refuses as a whole without applying any of it (a
/// lease of one write that just expired, say) is sent again one write at a
/// time, so one write's fault stays its own.
///
/// Thread safety: the machine and the writes' answers-to-be are in one `Locked`
/// box, held only to feed the machine or take a write's transaction, never
/// while etcd is asked or a writer is answered.
final class ClusterGroupedWrites: Sendable {
    /// What a write is handed: its own transaction's answer, or the failure.
    typealias Answer = @Sendable (Result<EtcdTransactionResult, EtcdError>) -> Void

    private struct State {
        var machine: ClusterWriteGroups
        var sent: [Int: (transaction: EtcdTransaction, answer: Answer)] = [:]
        var nextID = 0
    }

    private let state: Locked<State>
    private let client: EtcdClient

    /// Groups over `client`, with the machine's limits.
    init(client: EtcdClient, groups: ClusterWriteGroups = ClusterWriteGroups()) {
        self.client = client
        state = Locked(State(machine: groups))
    }

    /// A new write's identifier, which holds its keys' turns from its first
    /// `submit` until `finish`.
    func begin() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Sends `transaction` for write `id`, in a group with other writes, once
    /// `keys` are this write's turn; `answer` gets the write's own transaction's
    /// answer, with the group's header, on the etcd client's thread (or on
    /// this one, when etcd cannot be asked at all).
    func submit(_ transaction: EtcdTransaction, for id: Int, keys: [String], answer: @escaping Answer) {
        let submission = ClusterWriteGroups.Submission(id: id, keys: keys, bytes: Self.bytes(of: transaction))
        let actions = state.withLock { state in
            state.sent[id] = (transaction, answer)
            return state.machine.submit(submission)
        }
        perform(actions)
    }

    /// Write `id` is decided: the next writes of its keys may go.
    func finish(_ id: Int) {
        perform(state.withLock { $0.machine.finished(id) })
    }

    /// Sends the groups of `actions`; when etcd answered one, frees its slot
    /// and hands each write its answer.
    private func perform(_ actions: [ClusterWriteGroups.Action]) {
        for case .send(let slot, let ids) in actions {
            let writes = state.withLock { state in ids.compactMap { state.sent.removeValue(forKey: $0) } }
            send(writes.map(\.transaction)) { [self] answers in
                perform(state.withLock { $0.machine.answered(slot: slot) })
                for (write, answer) in zip(writes, answers) { write.answer(answer) }
            }
        }
    }

    /// Each write's answer to one group of `transactions`, to `completion`.
    func send(
        _ transactions: [EtcdTransaction],
        completion: @escaping @Sendable ([Result<EtcdTransactionResult, EtcdError>]) -> Void
    ) {
        guard transactions.count > 1 else {
            guard let transaction = transactions.first else { return completion([]) }
            client.transaction(transaction) { completion([$0]) }
            return
        }
        let group = EtcdTransaction(success: transactions.map { .transaction($0) })
        client.transaction(group) { [self] answer in
            switch answer.flatMap({ result in
                Result { () throws(EtcdError) in try Self.split(result, count: transactions.count) }
            }) {
            case .success(let answers):
                completion(answers.map { .success($0) })
            case .failure(let error)
            where !error.mayHaveBeenApplied && error.code != .unavailable && error.code != .invalidResponse:
                // etcd refused the whole group and applied none of it: each write alone.
                sendEachAlone(transactions[...], answered: [], completion: completion)
            case .failure(let error):
                completion(Array(repeating: .failure(error), count: transactions.count))
            }
        }
    }

    /// Sends `transactions` one after another, each alone, then hands over every answer.
    private func sendEachAlone(
        _ transactions: ArraySlice<EtcdTransaction>, answered: [Result<EtcdTransactionResult, EtcdError>],
        completion: @escaping @Sendable ([Result<EtcdTransactionResult, EtcdError>]) -> Void
    ) {
        guard let first = transactions.first else { return completion(answered) }
        client.transaction(first) { [self] answer in
            sendEachAlone(transactions.dropFirst(), answered: answered + [answer], completion: completion)
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
