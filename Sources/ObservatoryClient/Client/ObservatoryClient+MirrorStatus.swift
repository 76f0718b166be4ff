import Observatory

extension ObservatoryClient {
    /// The status of a mirror: the version and author of the server's value it
    /// holds, whether a local write waits for the server's acknowledgement, and
    /// whether the value may be stale.
    ///
    /// The status is a `Var`: observe it, or read its `value` where the
    /// Observation framework tracks reads (a SwiftUI view's body,
    /// `withObservationTracking`). It changes on the delivery queue, after the
    /// mirror's value.
    ///
    /// ```swift
    /// let door = client.variable("door.locked", default: false)
    /// let status = client.status(of: door)
    /// print(status?.value.author?.name ?? "nobody yet")
    /// ```
    ///
    /// - Parameter variable: A `Var` from ``variable(_:default:sessionBound:ttl:onConflict:)`` of this client.
    /// - Returns: The mirror's status, or nil when `variable` is not a mirror of this client.
    public func status<Value: Codable & Equatable & Sendable>(of variable: Var<Value>) -> Var<MirrorStatus>? {
        state.withLock { $0.machine.registry.first(Mirror<Value>.self) { $0.variable === variable } }?.status
    }
}
