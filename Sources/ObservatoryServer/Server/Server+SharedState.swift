import ObservatoryLogging

extension Server {
    /// Opens the shared state `configuration` asks for, and the sessions'
    /// environment around it: the one place the server's mode is decided.
    /// Everything after works through the `SharedState` seam.
    ///
    /// - A cluster node (`cluster.etcd` given): a `ClusterState` on etcd, whose
    ///   cache is the store programs read; session ids carry the node's tag.
    /// - Otherwise the local `SharedStore` with its storage.
    static func openSharedState(
        _ configuration: ServerConfiguration, logger: Logger, storageOptions: StorageOptions?
    ) throws -> (store: SharedStore, sessions: SessionEnvironment) {
        guard let cluster = configuration.cluster, !cluster.etcd.isEmpty else {
            let store = try SharedStore.open(
                configuration: configuration, logger: logger, storageOptions: storageOptions)
            return (store, SessionEnvironment(configuration: configuration, store: store, logger: logger))
        }
        let state = try ClusterState(
            configuration: cluster, historyChanges: configuration.limits.historyChanges,
            historyBytes: configuration.limits.historyBytes, maxKeys: configuration.limits.maxKeys, logger: logger)
        let sessions = SessionEnvironment(
            state: state, authenticator: Authenticator(auth: configuration.auth, logger: logger),
            sessionNumbers: SessionNumbers(after: 0, storage: nil, logger: logger, nodeTag: state.nodeTag),
            limits: SessionEnvironment.Limits(configuration.limits), logger: logger)
        return (state.cache, sessions)
    }
}
