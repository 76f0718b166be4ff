/// What one scenario does on the load driver's connections: it reacts to received
/// frames and sends what is due, and says when it is complete.
///
/// The driver owns the sockets and the loop; a workload owns the scenario's state
/// and figures. One protocol, so that every scenario runs on the same loop.
protocol Workload {
    /// Handles one frame from connection `index`, read at `now` (monotonic nanoseconds).
    mutating func received(_ frame: WireDialect.Frame, on index: Int, at now: UInt64, driver: LoadDriver)

    /// Queues what is due at `now`; returns true once the workload is complete.
    mutating func advance(at now: UInt64, driver: LoadDriver) -> Bool
}
