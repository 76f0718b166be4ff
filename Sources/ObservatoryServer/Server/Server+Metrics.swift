extension Server {
    /// The `/metrics` page: the sessions' counters, with what the open
    /// connections' queues and the store hold now.
    func metricsPage() -> [UInt8] {
        let connections = connectionsNow()
        var events = 0
        var queued = 0
        for connection in connections {
            connection.output.withQueue { queue in
                events += queue.eventCount
                queued += queue.queuedBytes
            }
        }
        let bytes = store.bytes
        let readings = MetricsPage.Readings(
            eventsOfOpenConnections: events, queuedBytes: queued, keys: store.keyCount, storeBytes: bytes.store,
            historyBytes: bytes.history, logBytes: store.storage?.logByteCount ?? 0, revision: store.revision,
            fsyncDurations: store.storage?.fsyncDurations.snapshot
                ?? Histogram(bounds: Histogram.durationBounds).snapshot)
        return Array(MetricsPage.text(sessions.metrics, readings).utf8)
    }
}
