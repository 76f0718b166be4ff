import ObservatoryWire

extension OutboundQueue {
    /// One entry of the queue: a frame, or an event whose frame is built when it is sent.
    enum Item {
        /// A complete frame (a reply or the shutdown event), never coalesced.
        case frame([UInt8])
        /// An event that may merge with later ones of its key.
        case change(StoreChange)
        /// An event of a key observed with `SlowPolicy.close`: never merged with another.
        case strictChange(StoreChange)
        /// The reply to a write, sent once its change at `revision` is acknowledged.
        case write([UInt8], revision: Int64, id: RequestID?)
        /// Changes of one key coalesced for a slow consumer: the frame is built when
        /// it is sent, on the connection's own queue, not by the writer that
        /// delivered the change (which holds the store's lock).
        case merged(first: StoreChange, latest: StoreChange)
        /// The slot of a write's reply that is not known yet: the shared state
        /// answers it into reply slot `slot` (see `fill(_:with:)`).
        case pendingWrite(slot: Int, id: RequestID?)
        /// The slot of a resuming `observe`'s reply and replay, not known yet.
        case pendingObservation(PendingObservation)

        /// The bytes the item counts for in `maxQueuedBytes`.
        var byteCount: Int {
            switch self {
            case .frame(let bytes), .write(let bytes, _, _): bytes.count
            case .change(let change), .strictChange(let change): change.frameByteCount
            case .merged(let first, let latest): StoreChange.coalescedByteCount(first, latest)
            case .pendingWrite, .pendingObservation: Item.pendingWriteByteCount
            }
        }

        /// A slot's count until its answer is in: not 0, so a queue holding one is not empty.
        static let pendingWriteByteCount = 64

        /// What a pending write becomes once answered: a write's reply (which waits
        /// for its revision to pass the revision gate), or an error's frame. A
        /// resume's answer cannot come for a write; it would be sent as an `internal` error.
        static func resolved(_ answer: ReplySlot.Answer, id: RequestID?) -> Item {
            guard case .reply(let result) = answer else {
                let error = WireError(code: .internalError, message: "the server answered a write as a resume")
                return .frame(Reply.failure(id: id, error).encodedLine())
            }
            switch result {
            case .success(let payload):
                let frame = Reply.success(id: id, payload).encodedLine()
                if case .set(_, let version, _, _) = payload { return .write(frame, revision: version, id: id) }
                if case .delete(_, let version, _) = payload { return .write(frame, revision: version, id: id) }
                return .frame(frame)
            case .failure(let error):
                return .frame(Reply.failure(id: id, error).encodedLine())
            }
        }

        /// The change a coalescable event item carries (merged ones count as their latest).
        var latestChange: StoreChange? {
            switch self {
            case .change(let change), .merged(_, let change): change
            case .frame, .write, .pendingWrite, .pendingObservation, .strictChange: nil
            }
        }

        /// The first revision an event item stands for (a merged one: its first change's).
        var earliestVersion: Int64? {
            switch self {
            case .change(let change), .merged(let change, _), .strictChange(let change): change.version
            // Its replay starts right after the resume point.
            case .pendingObservation(let observation): observation.resumeRevision + 1
            case .frame, .write, .pendingWrite: nil
            }
        }

        /// This event item followed by `later` of the same key.
        func merging(_ later: StoreChange) -> Item? {
            switch self {
            case .change(let first), .merged(let first, _): .merged(first: first, latest: later)
            case .frame, .write, .pendingWrite, .pendingObservation, .strictChange: nil
            }
        }
    }
}
