import ObservatoryWire

// What a session hands its connection: the answer to each frame, and what to do next.
extension Session {
    /// Takes received bytes from an array.
    func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// What the connection should do after a batch of answers.
    enum Action: Equatable {
        /// Keep reading.
        case keepOpen
        /// Send what is queued, then close (after `frame_too_large` or a failed `hello`).
        case close
        /// Stop reading: the output holds more than `maxQueuedBytes`, or the answer
        /// to a reply slot is not in yet. Ask for the next answers once it has drained.
        case backlogged
    }

    /// The answer to one frame, which the session queues on its output.
    ///
    /// One case for every reply known now, as its line: a reply wrapped in an
    /// enum and copied on its way to the output cost more than its encoding
    /// before the lock (callgrind). A write's success known now is no answer:
    /// the session queues it straight from the store's payload
    /// (`ConnectionOutput.queueWritten(_:id:releasingEventsAfter:)`).
    enum Answer {
        /// A reply known now, as its line (LF included), encoded before the
        /// output's lock, which handlers delivering events take too: a `list` may be large.
        case line([UInt8])
        /// The slot of the reply to a write (request `id`) that the shared
        /// state decides later and answers into reply slot `slot`.
        case pendingWrite(slot: Int, id: RequestID?)
        /// The slot of the reply to a resuming `observe` (request `id`, a resume
        /// after `resumeRevision`) and its replay, answered later into reply slot
        /// `slot`; the replay is filtered like live events of `route`.
        case pendingObservation(slot: Int, resumeRevision: Int64, id: RequestID?, route: ObservationSet.Route)
    }

    /// What performing an operation gave: a write's reply (now or later, with
    /// what to count then), or any other op's answer.
    enum Performed {
        case written(WriteReply, ReplySlots.Counting)
        case answered(Answer)
    }

    /// The changes a resumed `observe` replays, and the route they are filtered by.
    struct Replay {
        let changes: [StoreChange]
        let route: ObservationSet.Route
    }

    /// What `nextAnswer` did.
    enum Step {
        /// The next frame was answered: its answer (and a resumed `observe`'s
        /// replay) is queued, and the output then held `queuedBytes`. With
        /// `releasedEvents`, it was the last frame held, and the events held
        /// while the frames were answered are queued behind it.
        case answered(queuedBytes: Int, releasedEvents: Bool)
        /// The output holds too much, or a slot's answer is awaited: stop until it drains.
        case backlogged
        /// No complete frame is left, or the session is closing.
        case finished
    }

    /// Whether a rejected frame was a `hello` (a failed hello closes the connection,
    /// also when one of its fields is ill-typed). Parses again, on the error path only.
    static func namesHello(_ frame: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let value = try? JSONValue.parse(frame) else { return false }
        return value["op"] == "hello"
    }
}
