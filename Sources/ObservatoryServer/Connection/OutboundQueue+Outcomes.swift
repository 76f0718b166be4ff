import ObservatoryWire

extension OutboundQueue {
    /// Whether every queued byte has been sent.
    var isEmpty: Bool {
        queuedBytes == 0
    }

    /// How far storage lets replies to writes and events go, for one refill.
    struct Acknowledgement: Sendable {
        /// Changes up to this revision may be acknowledged.
        let revision: Int64
        /// The failure frame for a write whose change was lost, or `nil` if it is only waiting.
        let failureForLostWrite: @Sendable (_ revision: Int64, _ id: RequestID?) -> [UInt8]?

        /// No storage, or nothing to wait for: everything goes.
        static let everything = Acknowledgement(revision: .max) { _, _ in nil }
    }

    /// What happened to an event handed to the queue.
    enum EventOutcome: Equatable {
        /// It is queued (possibly merged into a pending event of its key).
        case queued
        /// The queue overflowed even after coalescing: the connection must be closed.
        case slowConsumer
    }
}
