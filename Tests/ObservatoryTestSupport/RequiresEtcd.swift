import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only when an `etcd` binary is on PATH; otherwise it
    /// is reported as skipped, saying how to install one.
    public static var requiresEtcd: Self {
        .enabled(
            if: EtcdCluster.isAvailable,
            "etcd is not on PATH: install etcd-server (apt-get install etcd-server, or .ci/install-etcd.sh)")
    }
}
