/// Which of a node's writes go to etcd together, and when: the rules of write
/// grouping, as a machine that takes inputs and returns actions (the I/O is
/// `ClusterGroupedWrites`'s).
///
/// Each write is one etcd transaction (`ClusterWritePlan`); a group is one etcd
/// transaction whose success branch nests the writes' transactions, each with its
/// own compare and outcome, all committed at one revision. The rules:
/// - **Groups in flight**: at most `maximumGroups` at once, each in a slot of its
///   own. A write that finds a free slot goes at once (alone, when the node is
///   quiet); writes that arrive while every slot is busy wait, and go together
///   in the next group, so a group grows with the load and etcd's work per
///   write shrinks as it does.
/// - **Key turns**: a write holds the turn on its keys (the store key and its
///   `requestId`) from its first send until `finished`, across its retries, so
///   this node's writes of one key go one after another, first come first
///   served, and never race each other for etcd's compare; only other nodes'
///   writes race with them. Two nested transactions of one group may not write
///   the same key (etcd refuses the whole group), which the turns also exclude.
/// - **Size**: at most `maximumWrites` writes (etcd allows 128 operations per
///   branch) and `maximumBytes` of puts per group; a larger write goes alone.
/// - **Order**: waiting writes are taken in arrival order; one blocked by a
///   key's turn does not hold back the writes behind it.
struct ClusterWriteGroups: Equatable {
    /// One write waiting to be sent.
    struct Submission: Equatable {
        /// The write's identifier, the same across its retries.
        let id: Int
        /// The names whose turn the write needs (a store key, a `requestId`).
        let keys: [String]
        /// The bytes it puts (keys and values), which bound a group's size.
        let bytes: Int
    }

    /// What the shell does next.
    enum Action: Equatable {
        /// Sends the writes `writes` (identifiers, in this order) as one group in `slot`.
        case send(slot: Int, writes: [Int])
    }

    /// The most groups in flight at once.
    let maximumGroups: Int
    /// The most writes in one group.
    let maximumWrites: Int
    /// The most bytes of puts in one group of more than one write.
    let maximumBytes: Int
    private var waiting: [Submission] = []
    /// The write holding each name's turn.
    private var turns: [String: Int] = [:]
    private var freeSlots: [Int]

    /// A machine with no write in flight.
    ///
    /// By default a group holds one write: writes of different sessions in one
    /// group share its revision, and docs/protocol.md gives every change outside
    /// a batch a revision of its own (the daemon's write-storm test checks that
    /// an observer's versions only grow), so larger groups wait for the protocol
    /// to allow it. Measured with groups of up to 64 writes (docs/cluster.md,
    /// "Writes in groups"): 0.61–0.66 of etcd's own puts with one group in
    /// flight, 0.60 with two, 0.47 with four.
    init(maximumGroups: Int = 64, maximumWrites: Int = 1, maximumBytes: Int = 1 << 20) {
        self.maximumGroups = max(1, maximumGroups)
        self.maximumWrites = max(1, maximumWrites)
        self.maximumBytes = maximumBytes
        freeSlots = Array((0..<self.maximumGroups).reversed())
    }

    /// How many writes wait for a slot or for a key's turn.
    var waitingCount: Int { waiting.count }

    /// A write (new, or planned again after its compare failed) is ready to be sent.
    mutating func submit(_ submission: Submission) -> [Action] {
        waiting.append(submission)
        return sendWaiting()
    }

    /// etcd answered (or failed) the group in `slot`: the slot is free again.
    mutating func answered(slot: Int) -> [Action] {
        freeSlots.append(slot)
        return sendWaiting()
    }

    /// Write `id` is decided: its keys' turns pass to the next writes.
    mutating func finished(_ id: Int) -> [Action] {
        turns = turns.filter { $0.value != id }
        return sendWaiting()
    }

    /// Fills the free slots with the waiting writes whose turn it is.
    private mutating func sendWaiting() -> [Action] {
        var actions: [Action] = []
        while !waiting.isEmpty, let slot = freeSlots.last {
            var group: [Int] = []
            var bytes = 0
            var left: [Submission] = []
            for submission in waiting {
                let isTurn = submission.keys.allSatisfy { turns[$0].map { $0 == submission.id } ?? true }
                let fits = group.isEmpty || (group.count < maximumWrites && bytes + submission.bytes <= maximumBytes)
                // Once a write is taken, its keys are its own: a later write of them waits.
                guard isTurn, fits, !group.contains(submission.id) else {
                    left.append(submission)
                    continue
                }
                group.append(submission.id)
                bytes += submission.bytes
                for key in submission.keys { turns[key] = submission.id }
            }
            guard !group.isEmpty else { break }
            waiting = left
            freeSlots.removeLast()
            actions.append(.send(slot: slot, writes: group))
        }
        return actions
    }
}
