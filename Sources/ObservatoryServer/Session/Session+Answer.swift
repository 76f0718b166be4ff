import ObservatoryWire

// What a session hands its connection: the answer to each frame, and what to do next.
extension Session {
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

    /// The answer to one frame, for the connection to carry out.
    struct Answer {
        /// What to queue in the frame's place among the replies.
        enum Content {
            /// A reply known now.
            case reply(Reply)
            /// A reply that carries values (a `get`, an `observe` snapshot), written from their bytes.
            case valueReply(RawReply)
            /// The slot of the reply to a write (request `id`) that the shared
            /// state decides later and answers into reply slot `slot`.
            case pendingWrite(slot: Int, id: RequestID?)
            /// The slot of the reply to a resuming `observe` (request `id`, a resume
            /// after `resumeRevision`) and its replay, answered later into reply slot
            /// `slot`; the replay is filtered like live events of `route`.
            case pendingObservation(slot: Int, resumeRevision: Int64, id: RequestID?, route: ObservationSet.Route)
        }

        /// The reply to queue, or the write whose reply holds its place.
        let content: Content
        /// The events held while this batch is answered go out ahead of the reply
        /// (a `ping`: its reply vouches for every change up to its revision).
        var releasesEventsFirst = false
        /// The changes a resumed `observe` replays, queued right behind its reply.
        var replay: Replay?
    }

    /// The changes a resumed `observe` replays, and the route they are filtered by.
    struct Replay {
        let changes: [StoreChange]
        let route: ObservationSet.Route
    }

    /// What `nextAnswer` found.
    enum Step {
        /// The answer to the next frame.
        case answer(Answer)
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
