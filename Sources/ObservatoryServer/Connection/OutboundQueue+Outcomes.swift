import ObservatoryWire

extension OutboundQueue {
    /// Whether every queued byte has been sent.
    var isEmpty: Bool {
        queuedBytes == 0
    }

    /// What a flush finds at the queue in one look, for the flush's outcome: the
    /// queue's state at that moment. Plain values only, so that the flush copies
    /// and drops it without a release (the bytes to send travel beside it).
    struct Look {
        /// Nothing is left to send.
        var isEmpty = true
        /// The queue failed as a slow consumer.
        var isFailed = false
        /// Bytes sent so far.
        var sentByteCount = 0
        /// The revision the head waits for storage to acknowledge, if it does.
        var waitingForRevision: Int64?
        /// Whether the head is a slot whose answer is not in yet.
        var isWaitingForAnswer = false
    }

    /// The queue's state now, for a flush's outcome.
    var look: Look {
        Look(
            isEmpty: isEmpty, isFailed: isFailed, sentByteCount: sentByteCount,
            waitingForRevision: waitingForRevision, isWaitingForAnswer: isWaitingForAnswer)
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
