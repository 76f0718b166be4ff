import ObservatoryWire

// Replies written straight into the write buffer when nothing holds them back.
extension OutboundQueue {
    /// Queues `reply` (the reply to a write waits until storage acknowledges the
    /// revision of its change, its `version`). `acknowledgedRevision` is how far
    /// storage has acknowledged changes now.
    mutating func append(_ reply: Reply, acknowledgedRevision: Int64) {
        switch reply {
        case .success(let id, let payload):
            appendSuccess(payload, id: id, acknowledgedRevision: acknowledgedRevision)
        case .failure:
            appendReply(revision: nil, id: reply.id, acknowledgedRevision: acknowledgedRevision) {
                reply.encodeLine(into: &$0)
            }
        }
    }

    /// Queues the success `.success(id: id, payload)`, as `append(_:acknowledgedRevision:)`
    /// does: the session hands a write's payload over as the store made it,
    /// without wrapping it in a reply first (callgrind: copying and destroying
    /// the wrapped reply cost about 400 instructions a `set`).
    mutating func appendSuccess(_ payload: ReplyPayload, id: RequestID?, acknowledgedRevision: Int64) {
        switch payload {
        case .set(let key, let version, let changed, let duplicate):
            appendSet(
                key: key, version: version, changed: changed, duplicate: duplicate, id: id,
                acknowledgedRevision: acknowledgedRevision)
        case .delete(let key, let version, let duplicate):
            appendReply(revision: version, id: id, acknowledgedRevision: acknowledgedRevision) {
                Reply.encodeWriteLine(id: id, key: key, version: version, changed: nil, duplicate: duplicate, into: &$0)
            }
        case .batch(let revision, let results, let duplicate):
            appendReply(revision: nil, id: id, acknowledgedRevision: acknowledgedRevision) {
                Reply.encodeBatchLine(id: id, revision: revision, results: results, duplicate: duplicate, into: &$0)
            }
        default:
            appendReply(revision: nil, id: id, acknowledgedRevision: acknowledgedRevision) {
                Reply.success(id: id, payload).encodeLine(into: &$0)
            }
        }
    }

    /// Queues the success of a `set` from its fields, as `appendSuccess(_:id:acknowledgedRevision:)`
    /// does for its payload: a session that matched the payload already hands them over.
    mutating func appendSet(
        key: String, version: Int64, changed: Bool?, duplicate: Bool, id: RequestID?, acknowledgedRevision: Int64
    ) {
        appendReply(revision: version, id: id, acknowledgedRevision: acknowledgedRevision) {
            Reply.encodeWriteLine(id: id, key: key, version: version, changed: changed, duplicate: duplicate, into: &$0)
        }
    }

    /// Queues the reply that `write` appends (its line, LF included) to a buffer.
    ///
    /// When nothing is pending ahead of it, the queue is not coalescing, the
    /// frames are lines and the unsent bytes are below `directBytes`, `write`
    /// appends the line to the write buffer itself: the reply needs no array of its
    /// own, no item to keep, take out and release later. If storage has not
    /// acknowledged `revision` yet (nil for a reply that waits for none), the line
    /// waits there behind a gate (`GatedReply`). Otherwise it goes into an
    /// array of its own, queued as a frame or, with a `revision`, as a write's reply
    /// that waits for it. As with a refill's last frame, a reply written straight
    /// may take the unsent bytes past `directBytes` by its own size.
    private mutating func appendReply(
        revision: Int64?, id: RequestID?, acknowledgedRevision: Int64, _ write: (inout [UInt8]) -> Void
    ) {
        guard !isFailed else { return }
        // `hasRoom(for: 1)`: the unsent bytes are below `directBytes`, as for events.
        if coalescingIndex == nil, case .lines = framing, hasRoom(for: 1) {
            guard let revision, revision > acknowledgedRevision else {
                write(&writeBuffer)
                return
            }
            // Not acknowledged yet: written all the same, behind a gate of its own.
            let start = writeBuffer.count
            write(&writeBuffer)
            gatedReplies.append(GatedReply(revision: revision, start: start, end: writeBuffer.count, id: id))
            return
        }
        var frame: [UInt8] = []
        frame.reserveCapacity(FrameBuilder.typicalByteCount)
        write(&frame)
        if let revision {
            appendWriteReply(frame, revision: revision, id: id, acknowledgedRevision: acknowledgedRevision)
        } else {
            appendFrame(frame)
        }
    }
}
