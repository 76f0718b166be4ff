/// The scenarios of `observatory-bench cluster`, each a row with a cluster node's
/// figure next to a reference measured in the same run:
///
/// - writes: 50 connections doing set → reply → next through one node, against as
///   many keep-alive connections putting straight to etcd's JSON gateway;
/// - fan-out: paced writers on node A, observers on node B; B's CPU time per
///   delivery against a single daemon (no etcd) doing the same;
/// - lag: paced writers on node A, observers on node B; the time from a write's
///   intended send to its event's arrival (no reference: a single daemon has no
///   other node).
///
/// The paced scenarios spread their writes over `writers` connections, each on a key
/// of its own, observed as one prefix: a node writes one key at a time (each write
/// waits for etcd), so one writer on one key would measure that wait, not the node.
enum ClusterScenario: TableScenario, Equatable, Sendable {
    case writes(connections: Int)
    case fanOut(observers: Int, rate: Int)
    case lag(observers: Int, rate: Int)

    /// The groups `--only` takes, each with its scenarios in the table's order.
    static func group(_ name: String, fanOutRate: Int, lagRate: Int) -> [ClusterScenario]? {
        switch name {
        case "writes": [.writes(connections: 50)]
        case "fanout": [.fanOut(observers: 100, rate: fanOutRate), .fanOut(observers: 1_000, rate: fanOutRate)]
        case "lag": [.lag(observers: 10, rate: lagRate)]
        default: nil
        }
    }

    /// Connections (and keys) the paced writes are spread over.
    static let writers = 20

    /// The names of the groups, in the table's order.
    static let groups = ["writes", "fanout", "lag"]

    var name: String {
        switch self {
        case .writes(let connections): "writes-\(connections)"
        case .fanOut(let observers, _): "fanout-\(observers)"
        case .lag(let observers, _): "lag-\(observers)"
        }
    }

    var title: String {
        switch self {
        case .writes(let connections):
            "writes, \(connections.formatted()) connections, sets/s (reference: puts to etcd's gateway)"
        case .fanOut(let observers, let rate):
            "fan-out to \(observers.formatted()) observers at \(rate.formatted()) sets/s, deliveries/s "
                + "(reference: one daemon without etcd)"
        case .lag(let observers, let rate):
            "lag from node A to \(observers.formatted()) observers on node B at \(rate.formatted()) sets/s, p99"
        }
    }

    var unit: ServerScenario.Unit {
        switch self {
        case .writes, .fanOut: .perSecond
        case .lag: .nanoseconds
        }
    }

    var cpuPerDeliveryTitle: String? {
        guard case .fanOut(let observers, let rate) = self else { return nil }
        return "fan-out to \(observers.formatted()) observers at \(rate.formatted()) sets/s, "
            + "CPU per delivery of the observers' node"
    }

    /// Measures the cluster node's side once, in run number `run` (which makes its key unique).
    func measureNode(on cluster: ClusterUnderTest, seconds: Double, run: Int) throws -> ScenarioResult {
        let key = "bench.\(name).\(run)"
        switch self {
        case .writes(let connections):
            return try ServerScenario.writes(cluster.nodeA, connections: connections, seconds: seconds)
        case .fanOut(let observers, let rate):
            return try ServerScenario.fanOut(
                observersOn: cluster.nodeB, writerOn: cluster.nodeA, key: key, observers: observers,
                rate: Double(rate), seconds: seconds, writers: Self.writers, latencyFigure: false)
        case .lag(let observers, let rate):
            return try ServerScenario.fanOut(
                observersOn: cluster.nodeB, writerOn: cluster.nodeA, key: key, observers: observers,
                rate: Double(rate), seconds: seconds, writers: Self.writers)
        }
    }

    /// Measures the reference once, or returns nil for a scenario without one.
    func measureReference(on cluster: ClusterUnderTest, seconds: Double, run: Int) throws -> ScenarioResult? {
        let key = "bench.\(name).\(run)"
        switch self {
        case .writes(let connections):
            return try ServerScenario.writes(cluster.etcd.gateway, connections: connections, seconds: seconds)
        case .fanOut(let observers, let rate):
            return try ServerScenario.fanOut(
                observersOn: cluster.singleDaemon, key: key, observers: observers, rate: Double(rate),
                seconds: seconds, writers: Self.writers, latencyFigure: false)
        case .lag:
            return nil
        }
    }
}
