import Observatory
import ObservatoryEtcd
import ObservatoryWire

/// A write's decision machine as the key budget answers it: a create asks for
/// room under `limits.maxKeys`, and the machine takes the answer (room given or
/// refused) or the failure to count the keys in etcd, and returns its next actions.
///
/// `ClusterWriteDecision` and `ClusterBatchDecision` both ask, so their runs
/// reserve room through one function (`ClusterKeyBudget.reserve(_:for:in:counting:then:)`).
protocol ClusterRoomAsking: SendableMetatype {
    /// What the machine asks its run to do next.
    associatedtype Action

    /// The budget answered: room reserved (`refusal` nil), or refused with `refusal`.
    mutating func roomDecided(refusal: WireError?) -> [Action]

    /// Counting the keys in etcd (near the limit) failed.
    mutating func failed(_ error: EtcdError) -> [Action]
}

extension ClusterKeyBudget {
    /// Reserves room for `key` on behalf of `machine`: at once far from the
    /// limit, else on the budget's serial queue, counting the prefix's keys in
    /// etcd through `client`. Feeds the answer to the machine and hands its next
    /// actions to `carryOut`, on whichever thread the answer came.
    func reserve<Machine: ClusterRoomAsking>(
        _ key: String, for machine: Locked<Machine>, in cache: SharedStore,
        counting client: (EtcdClient, ClusterKeyLayout), then carryOut: @escaping @Sendable ([Machine.Action]) -> Void
    ) {
        let (etcd, layout) = client
        let countKeys = { @Sendable () throws(EtcdError) -> (count: Int, revision: Int64) in
            let range = try etcd.range(layout.values, limit: 1)
            return (Int(range.count), range.header.revision)
        }
        reserve(key, in: cache, committedKeys: countKeys) { [self] room in
            carryOut(
                machine.withLock { machine in
                    switch room {
                    case .success(let hasRoom): machine.roomDecided(refusal: hasRoom ? nil : exceeded)
                    case .failure(let error): machine.failed(error)
                    }
                })
        }
    }
}
