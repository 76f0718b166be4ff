import Observatory
import ObservatoryWire

// The local shared state: this process's store and its storage. It answers
// every write and observation at once, so it never uses the reply slot.
extension SharedStore: SharedState {
    func apply(_ write: Write, by author: Author, answering slot: ReplySlot) throws(WireError) -> WriteReply {
        try apply(write, by: author)
    }

    func applyBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) throws(WireError) -> WriteReply {
        try applyBatch(operations, requestId: requestId, by: author)
    }

    func observe<Failure: Error>(
        _ target: Target, from resumePoint: ResumePoint?, by observer: some Observer, answering slot: ReplySlot,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool, receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> ObservationStart {
        try observe(target, from: resumePoint, by: observer, subscribe: subscribe, receive: receive)
    }

    /// Applies a session's write batched: see `SharedStore+Batching.swift`.
    func apply(_ write: Write, by author: Author) throws(WireError) -> WriteReply {
        switch write {
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl):
            let now = Self.wallMilliseconds(requestId, ttl: ttl)
            return .ready(
                try self.write(from: author, batched: true) { data throws(WireError) in
                    try data.planSet(
                        key, to: value, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId,
                        ttl: ttl, by: author, now: now)
                })
        case .delete(let key, let ifVersion, let requestId):
            let now = Self.wallMilliseconds(requestId)
            return .ready(
                try self.write(from: author, batched: true) { data throws(WireError) in
                    try data.planDelete(key, ifVersion: ifVersion, requestId: requestId, by: author, now: now)
                })
        }
    }

    func history(_ query: HistoryQuery, maxBytes: Int, where isIncluded: (String) -> Bool) -> HistoryPage {
        withWrittenState { guarded in
            guarded.history.page(query, revision: guarded.data.revision, maxBytes: maxBytes, where: isIncluded)
        }
    }

    func applyBatch(_ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author)
        throws(WireError)
        -> WriteReply
    {
        .ready(try batch(operations, requestId: requestId, by: author, batched: true))
    }

    func close() {
        // Everything unwritten is written, and no write is in flight, before storage closes.
        whenAllowed(.exclusive) { _ in }
        storage?.close()
    }
}
