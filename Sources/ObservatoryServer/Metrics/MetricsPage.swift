import ObservatoryWire

/// The `/metrics` page: the counters of `ServerMetrics` with what is read at
/// scrape time, in Prometheus's text format 0.0.4.
struct MetricsPage {
    /// What is read from the running server when the page is made.
    struct Readings {
        /// Events queued by the open connections.
        var eventsOfOpenConnections: Int
        /// Bytes waiting in the open connections' queues.
        var queuedBytes: Int
        /// The number of keys.
        var keys: Int
        /// The bytes the store's entries take in memory (counted against `limits.maxStoreBytes`).
        var storeBytes: Int
        /// The bytes of recent changes kept for resuming (counted against `limits.historyBytes`).
        var historyBytes: Int
        /// The bytes of the data directory's change log (0 without storage).
        var logBytes: Int
        /// The last revision.
        var revision: Int64
        /// The fsync durations (an empty histogram without storage).
        var fsyncDurations: Histogram.Snapshot
    }

    /// The page's text.
    static func text(_ metrics: ServerMetrics, _ readings: Readings) -> String {
        var page = PrometheusText()
        page.gauge(
            "observatory_connections", help: "Open connections by transport.",
            samples: ServerMetrics.Transport.allCases.map {
                (["transport": $0.rawValue], Double(metrics.connections[$0]?.current ?? 0))
            })
        page.counter(
            "observatory_requests_total", help: "Requests answered, by op.",
            samples: zip(OperationKind.allCases, metrics.requests).map {
                (["op": $0.rawValue], Double($1.current))
            })
        page.counter(
            "observatory_errors_total", help: "Error replies, by code.",
            samples: ServerMetrics.errorCodes.map { (["code": $0], Double(metrics.errors[$0]?.current ?? 0)) })
        page.counter(
            "observatory_changes_total", help: "Changes made through this server's sessions.",
            value: Double(metrics.changes.current))
        page.counter(
            "observatory_events_sent_total", help: "Events queued to clients.",
            value: Double(metrics.eventsOfClosedConnections.current + readings.eventsOfOpenConnections))
        page.gauge(
            "observatory_queued_bytes", help: "Bytes waiting to be sent to clients.",
            value: Double(readings.queuedBytes))
        page.counter(
            "observatory_expired_total", help: "Expiring keys deleted because their time was up.",
            value: Double(metrics.expired.current))
        page.counter(
            "observatory_slow_consumer_closes_total", help: "Connections closed as slow consumers.",
            value: Double(metrics.slowConsumerCloses.current))
        page.counter(
            "observatory_resumes_total", help: "observe requests with fromRevision, by outcome.",
            samples: [
                (["outcome": "replayed"], Double(metrics.resumesReplayed.current)),
                (["outcome": "reset"], Double(metrics.resumesReset.current)),
            ])
        page.histogram(
            "observatory_fsync_duration_seconds", help: "Durations of the storage's fsyncs.",
            snapshot: readings.fsyncDurations)
        page.gauge("observatory_keys", help: "Keys in the store.", value: Double(readings.keys))
        page.gauge(
            "observatory_store_bytes", help: "Bytes the store's entries take in memory (limits.maxStoreBytes).",
            value: Double(readings.storeBytes))
        page.gauge(
            "observatory_history_bytes", help: "Bytes of recent changes kept for resuming (limits.historyBytes).",
            value: Double(readings.historyBytes))
        page.gauge(
            "observatory_log_bytes", help: "Bytes of the change log in the data directory.",
            value: Double(readings.logBytes))
        page.gauge("observatory_revision", help: "The last revision.", value: Double(readings.revision))
        return page.text
    }
}
