import Dispatch
import Observatory

/// Makes this node's writes of one key take turns, first come first served, so
/// that they never race each other for etcd's compare on that key.
///
/// A write is a compare-and-set on the key's `mod_revision`; a node that sent
/// several sessions' writes of one hot key at once would see all but one refused
/// each round, and a write could lose often enough to give up (seen in the
/// conformance suite: four writers of one key, a few writes answered
/// `unavailable`). Taking turns on the node leaves only other nodes' writes to
/// race with, and costs nothing etcd did not already serialize: every write of a
/// key must see the one before it. Writes of different keys still run together.
///
/// Thread safety: each key in use has a serial queue; a writer runs its
/// transaction with `sync` on it (on the writer's own thread, in arrival order).
/// The table of queues is in a `Locked` box, held only to look a queue up, count
/// its users and drop it when the last one leaves, never while a write runs.
final class ClusterKeyTurns: Sendable {
    private struct Turn {
        let queue: DispatchQueue
        var users: Int
    }

    private let turns = Locked<[StoreKey: Turn]>([:])

    /// Runs `body` once every write of `key` that came before it on this node is done.
    func run<Result>(_ key: StoreKey, _ body: () -> Result) -> Result {
        let queue = turns.withLock { turns in
            let turn = turns[key] ?? Turn(queue: DispatchQueue(label: "observatory.cluster.key"), users: 0)
            turns[key] = Turn(queue: turn.queue, users: turn.users + 1)
            return turn.queue
        }
        defer {
            turns.withLock { turns in
                guard let turn = turns[key] else { return }
                turns[key] = turn.users > 1 ? Turn(queue: turn.queue, users: turn.users - 1) : nil
            }
        }
        return queue.sync(execute: body)
    }

    /// How many writes of `key` are running or waiting on this node.
    func writers(of key: StoreKey) -> Int {
        turns.withLock { $0[key]?.users ?? 0 }
    }
}
