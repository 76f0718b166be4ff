import ObservatoryWire

/// What the server answered to a successful batch (``ObservatoryClient/batch(_:)``).
public struct BatchOutcome: Sendable, Equatable {
    /// The revision every change of the batch took; the current revision when
    /// nothing changed (every `set` wrote the value the key held, and there was
    /// no `delete`).
    public let revision: Int64
    /// One result per step, in the order of the steps: the key and its version
    /// after the batch (the batch's revision for a change; the key's version for
    /// a `check` and for a `set` that changed nothing), and for a `set`, whether
    /// it changed the value.
    public let results: [BatchResult]
}
