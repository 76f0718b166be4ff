import ObservatoryWire

/// The bytes waiting to go out on one connection: replies and events in order,
/// whole frames only, with the slow-consumer rules of docs/protocol.md.
///
/// A plain value; `ConnectionOutput` keeps it behind a lock. Frames move from the
/// pending items into a write buffer in chunks (a reply or event with nothing
/// pending ahead of it that need not wait goes there at once); the socket layer
/// sends from the write buffer, so a frame is never interleaved with another.
///
/// - Queued bytes above `maxQueuedBytes` make the queue coalesce its pending events
///   per key (first `old`, latest new value and version). It then keeps merging new
///   events into the pending one of their key, in O(1), until it has drained.
/// - Events of keys observed with `SlowPolicy.close` are never merged (and a key's
///   later events do not merge into one ahead of them, so each key's order holds).
/// - If coalescing is not enough, everything pending is replaced by one error
///   `slow_consumer` with `"id":null` and the `revision` up to which every event
///   was sent (`slowConsumerRevision`), and the queue takes nothing more
///   (`isFailed`): the connection is closed once that error is out.
/// - While `holdEvents()` is in effect, events wait aside, so a reply (an `observe`
///   snapshot) goes out before events that arrived while it was being made.
/// - With storage, a write's reply and a change's event wait at the head of the
///   queue until storage acknowledges their revision (`nextBytes(acknowledging:)`),
///   and everything behind them waits too, so order holds (a reply with nothing
///   pending ahead waits in the write buffer itself, behind its gate). A write whose fsync
///   failed gets the error its `Acknowledgement` says instead of its reply.
/// - A write's reply or a resuming `observe`'s reply and replay that the shared
///   state gives later holds its place, a slot numbered by its `ReplySlot`:
///   nothing behind it goes out until its answer is in (`fill(_:with:)`, an input
///   the connection carries on its own loop; `isWaitingForAnswer` says the head waits).
///
/// Items, counts, buffer and cursors are internal for the `+Pending` and `+Replies` files.
/// Its twenty-one stored properties (items, byte and event counts, coalescing index,
/// direct-write buffer, its framing and gated replies, acknowledgement and answer cursors, the send taken,
/// the replay's allowance, the failure's revision) all change together on every
/// append and send, on every delivery's hot path, so they stay in one value.
struct OutboundQueue {
    /// Queued bytes beyond which events are coalesced, then the connection dropped.
    let maxQueuedBytes: Int
    /// How many bytes are moved into the write buffer at a time.
    let chunkBytes: Int
    /// Unsent bytes up to which events and replies go straight into the write buffer.
    let directBytes: Int
    /// How frames go into the write buffer; changed only while it is taken whole.
    var framing = OutboundFraming.lines

    var items: [Item?] = []
    var head = 0
    var pendingBytes = 0
    var writeBuffer: [UInt8] = []
    var writeOffset = 0
    /// While coalescing: the position in `items` of the pending event of each key.
    var coalescingIndex: [StoreKey: Int]?
    /// Bytes of a resume's replay still counted beyond `maxQueuedBytes` (see `appendReplayed`).
    var replayAllowance = 0
    /// Events that wait while `holdEvents()` is in effect, each with whether it may be coalesced.
    private var heldEvents: [(change: StoreChange, mayCoalesce: Bool)] = []
    private(set) var isHolding = false
    /// Set after a slow-consumer failure: only the error frame remains to be sent.
    private(set) var isFailed = false
    /// After a slow-consumer failure: every event up to this revision is sent
    /// ahead of the error, which carries it (see `failSlowConsumer()`).
    private(set) var slowConsumerRevision: Int64?
    /// Bytes sent so far, to tell a client that still reads from one that stopped.
    var sentByteCount = 0
    /// The bytes a flush last took and counted as sent before sending them (`takeForSending`).
    var unconfirmedSend: UnconfirmedSend?
    /// Events handed to the queue, for `/metrics` (a plain count: the queue's lock guards it).
    var eventCount = 0
    /// The revision the head of the queue waits for storage to acknowledge, after a
    /// refill or a look at the gated replies that stopped there.
    var waitingForRevision: Int64?
    /// Replies to writes written into the write buffer ahead of their revision's
    /// acknowledgement, in order (`OutboundQueue+Gates.swift`).
    var gatedReplies: [GatedReply] = []
    /// Whether the head of the queue is a slot whose answer is not in yet, after a
    /// refill that stopped there (its answer's arrival flushes the connection again).
    private(set) var isWaitingForAnswer = false

    /// Creates an empty queue.
    ///
    /// Bytes in the write buffer are committed and can no longer be coalesced, so by
    /// default a chunk is at most a quarter of `maxQueuedBytes`: the rest stays
    /// available to the pending events that coalescing can shrink.
    init(maxQueuedBytes: Int, chunkBytes: Int? = nil) {
        self.maxQueuedBytes = maxQueuedBytes
        self.chunkBytes = chunkBytes ?? min(65_536, max(256, maxQueuedBytes / 4))
        directBytes = min(self.chunkBytes, maxQueuedBytes / 4)
    }

    /// Bytes queued and not yet sent.
    var queuedBytes: Int {
        writeBuffer.count - writeOffset + pendingBytes
    }

    /// Whether events are being coalesced (the queue overflowed and has not drained since).
    var isCoalescing: Bool {
        coalescingIndex != nil
    }

    /// Queues a complete frame (a reply or the shutdown event), LF included. Never coalesced.
    mutating func appendFrame(_ frame: [UInt8]) {
        guard !isFailed, !appendToWriteBuffer(frame) else { return }
        items.append(.frame(frame))
        pendingBytes += frame.count
    }

    /// Queues the reply to a write, held back until storage acknowledges `revision`
    /// (`acknowledgedRevision`: how far it has now, as for `appendEvent`).
    mutating func appendWriteReply(_ frame: [UInt8], revision: Int64, id: RequestID?, acknowledgedRevision: Int64) {
        guard !isFailed else { return }
        guard revision > acknowledgedRevision || !appendToWriteBuffer(frame) else { return }
        items.append(.write(frame, revision: revision, id: id))
        pendingBytes += frame.count
    }

    /// Queues an event, coalescing or failing when over the limit.
    ///
    /// - Parameters:
    ///   - acknowledgedRevision: How far storage has acknowledged changes now; an
    ///     event within it may go straight into the write buffer.
    ///   - mayCoalesce: False for a key observed with `SlowPolicy.close`: its
    ///     events are never merged, and when they do not fit the queue fails.
    mutating func appendEvent(
        _ change: StoreChange, acknowledgedRevision: Int64 = .max, mayCoalesce: Bool = true
    ) -> EventOutcome {
        guard !isFailed else { return .slowConsumer }
        eventCount &+= 1
        if !isHolding, appendToWriteBuffer(change, acknowledgedRevision: acknowledgedRevision) {
            return .queued
        }
        return holdOrEnqueue(change, mayCoalesce: mayCoalesce)
    }

    /// An event that cannot go straight into the write buffer: kept aside while
    /// events are held, else queued. Out of `appendEvent`, whose common case
    /// (straight into the write buffer) stays small enough to be inlined into
    /// every delivery (callgrind: 27 instructions a delivery when it was not).
    @inline(never)
    private mutating func holdOrEnqueue(_ change: StoreChange, mayCoalesce: Bool) -> EventOutcome {
        if isHolding {
            heldEvents.append((change, mayCoalesce))
            return .queued
        }
        return enqueue(change, mayCoalesce: mayCoalesce)
    }

    /// Copies an event's bytes straight into the write buffer when nothing is
    /// pending ahead of it, storage has acknowledged it, and the unsent bytes stay
    /// within `directBytes`. That is the common case, a consumer that keeps up, and
    /// it then needs no item to keep, take out and release later: a quarter of a
    /// delivery's instructions.
    ///
    /// Bytes in the write buffer can no longer be coalesced, so this commits no
    /// more than a refill does: a chunk, at most a quarter of `maxQueuedBytes`.
    /// (If a send of the buffer is still under way on another thread, appending
    /// copies the buffer first; with one event loop that never happens.)
    private mutating func appendToWriteBuffer(_ change: StoreChange, acknowledgedRevision: Int64) -> Bool {
        guard coalescingIndex == nil, change.version <= acknowledgedRevision, hasRoom(for: change.frameByteCount) else {
            return false
        }
        framing.append(change, to: &writeBuffer)
        return true
    }

    /// Copies a reply straight into the write buffer when nothing is pending ahead
    /// of it, as events go: it then needs no item to keep, take out and release
    /// (callgrind: about 700 instructions a `set`).
    private mutating func appendToWriteBuffer(_ frame: [UInt8]) -> Bool {
        guard hasRoom(for: frame.count) else { return false }
        framing.append(frame, to: &writeBuffer)
        return true
    }

    /// Whether `count` bytes may go into the write buffer now (nothing pending ahead, unsent
    /// bytes within `directBytes`). Inlined into every delivery. A drained buffer is emptied
    /// once 1 KiB was sent from it (each emptying costs about 130 instructions, callgrind).
    /// Replies written in place (`OutboundQueue+Replies.swift`) ask it too.
    @inline(__always)
    mutating func hasRoom(for count: Int) -> Bool {
        guard head == items.count, writeBuffer.count - writeOffset + count <= directBytes else { return false }
        if writeOffset == writeBuffer.count, writeOffset >= 1_024 { emptyWriteBuffer() }
        return true
    }

    /// Empties a drained write buffer, out of line: `hasRoom(for:)` stays small.
    @inline(never)
    private mutating func emptyWriteBuffer() {
        writeBuffer.removeAll(keepingCapacity: writeBuffer.capacity <= chunkBytes * 2)
        writeOffset = 0
        unconfirmedSend?.isBufferEmptied = true
    }

    /// Queues a replayed event at once, even while events are held: it belongs
    /// right behind the `observe` reply just queued, ahead of the held ones.
    ///
    /// A replay counts beyond `maxQueuedBytes` until that many bytes have been
    /// sent: its changes are the history's own (shared, bounded by the history's
    /// size), and a client that resumes after a `slow_consumer` close with
    /// `"slow":"close"` must be able to take a backlog larger than the limit;
    /// otherwise it would be closed again at the same revision, for ever.
    mutating func appendReplayed(_ change: StoreChange, mayCoalesce: Bool = true) -> EventOutcome {
        guard !isFailed else { return .slowConsumer }
        eventCount &+= 1
        replayAllowance += change.frameByteCount
        return enqueue(change, mayCoalesce: mayCoalesce)
    }

    /// Makes events wait until `releaseEvents()`.
    mutating func holdEvents() {
        isHolding = true
    }

    /// Queues the events that waited, after whatever was queued meanwhile.
    mutating func releaseEvents() -> EventOutcome {
        isHolding = false
        // Nothing waited, the common case: no array to swap (callgrind: about 50 instructions).
        guard !heldEvents.isEmpty else { return isFailed ? .slowConsumer : .queued }
        let waiting = heldEvents
        heldEvents = []
        // Held events are in revision order: those left after a failure come after
        // the one that failed, so they cannot lower `slowConsumerRevision`.
        for held in waiting where enqueue(held.change, mayCoalesce: held.mayCoalesce) == .slowConsumer {
            return .slowConsumer
        }
        return isFailed ? .slowConsumer : .queued
    }

    private mutating func enqueue(_ change: StoreChange, mayCoalesce: Bool) -> EventOutcome {
        if !mayCoalesce {
            items.append(.strictChange(change))
            pendingBytes += change.frameByteCount
            // A later coalescable event of this key must not merge into one ahead of this.
            if coalescingIndex != nil { coalescingIndex?[StoreKey(change.key)] = nil }
        } else if let position = coalescingIndex?[StoreKey(change.key)], let pending = items[position],
            let merged = pending.merging(change)
        {
            pendingBytes += merged.byteCount - pending.byteCount
            items[position] = merged
        } else {
            items.append(.change(change))
            pendingBytes += change.frameByteCount
            coalescingIndex?[StoreKey(change.key)] = items.count - 1
        }
        guard queuedBytes > maxQueuedBytes &+ replayAllowance else { return .queued }
        if coalescingIndex == nil {
            coalescePendingEvents()
            if queuedBytes <= maxQueuedBytes &+ replayAllowance { return .queued }
        }
        failSlowConsumer()
        return .slowConsumer
    }

    /// Merges every pending event into the first pending event of its key.
    private mutating func coalescePendingEvents() {
        var merged: [Item?] = []
        var index: [StoreKey: Int] = [:]
        for case let item? in items[head...] {
            if case .strictChange(let change) = item {
                index[StoreKey(change.key)] = nil
                merged.append(item)
                continue
            }
            guard let change = item.latestChange else {
                merged.append(item)
                continue
            }
            if let position = index[StoreKey(change.key)], let pending = merged[position],
                let combined = pending.merging(change)
            {
                merged[position] = combined
            } else {
                index[StoreKey(change.key)] = merged.count
                merged.append(item)
            }
        }
        items = merged
        head = 0
        pendingBytes = merged.reduce(0) { $0 + ($1?.byteCount ?? 0) }
        coalescingIndex = index
    }

    /// Replaces everything pending by the `slow_consumer` error and its `revision` R.
    ///
    /// Why R is the earliest revision among the events dropped here, minus one:
    /// - The store hands changes to every observer under the lock that numbers
    ///   them, one change at a time, so whatever thread wrote them, this queue
    ///   receives the events of what the connection observes in revision order.
    ///   When it fails on an event at revision v, every event before v of what it
    ///   observes has been handed to it, and none after v (those are refused:
    ///   `isFailed`).
    /// - Each event handed to it is now either in the write buffer or already
    ///   sent (both go out ahead of the error), or dropped here: pending items,
    ///   held events (later ones a `releaseEvents()` had not reached yet come after
    ///   v, as do replayed changes after the one that failed).
    /// - So every event below the earliest dropped one is sent. A merged item
    ///   stands for its key's changes from its first to its latest: dropped, it
    ///   counts from its first; sent, it carries the latest value of every
    ///   revision it covers, which is what the client would have ended with.
    /// Events after R that were sent (a merged one, or events of other keys queued
    /// ahead of a dropped one) may come again on resume; clients skip what they hold.
    private mutating func failSlowConsumer() {
        var earliestDropped = Int64.max
        for case let item? in items[head...] {
            if let version = item.earliestVersion { earliestDropped = min(earliestDropped, version) }
        }
        for held in heldEvents { earliestDropped = min(earliestDropped, held.change.version) }
        // Never `.max`: the event that overflowed the queue is among the dropped ones.
        let revision = earliestDropped == .max ? 0 : max(0, earliestDropped - 1)
        slowConsumerRevision = revision
        let error = WireError.slowConsumer(limit: maxQueuedBytes, revision: revision)
        let frame = Reply.failure(id: nil, error).encodedLine()
        items = [.frame(frame)]
        head = 0
        pendingBytes = frame.count
        coalescingIndex = nil
        heldEvents = []
        replayAllowance = 0
        isFailed = true
    }

    /// Drops everything queued and frees the buffers; the queue takes nothing more
    /// (its connection is closed).
    mutating func discardAll() {
        items = []
        head = 0
        pendingBytes = 0
        writeBuffer = []
        writeOffset = 0
        gatedReplies = []
        coalescingIndex = nil
        heldEvents = []
        unconfirmedSend = nil
        isFailed = true
    }

    /// Moves pending items into the drained write buffer, up to a chunk, as far as
    /// storage and the slots' answers let them go (`nextBytes(acknowledging:)`).
    mutating func refillWriteBuffer(_ acknowledgement: Acknowledgement) {
        waitingForRevision = nil
        isWaitingForAnswer = false
        // With nothing to take, a small drained buffer is emptied by the next append instead.
        if head == items.count, writeBuffer.capacity <= chunkBytes * 2 { return compactItems() }
        writeBuffer.removeAll(keepingCapacity: writeBuffer.capacity <= chunkBytes * 2)
        writeOffset = 0
        while head < items.count, writeBuffer.count < chunkBytes {
            // Moved out, not copied: a copy would cost a reference count per frame.
            guard let item = items[head].take() else {
                head += 1
                continue
            }
            switch item {
            case .pendingWrite, .pendingObservation:
                // `fill(_:with:)` replaces the slot once its answer is in.
                isWaitingForAnswer = true
                items[head] = item
                return compactItems()
            case .frame(let bytes):
                framing.append(bytes, to: &writeBuffer)
            case .change(let change), .merged(_, let change), .strictChange(let change):
                guard change.version <= acknowledgement.revision else {
                    waitingForRevision = change.version
                    items[head] = item
                    return compactItems()
                }
                if case .merged(let first, _) = item {
                    framing.append(first.coalesced(with: change), to: &writeBuffer)
                } else {
                    framing.append(change, to: &writeBuffer)
                }
                if coalescingIndex?[StoreKey(change.key)] == head { coalescingIndex?[StoreKey(change.key)] = nil }
            case .write(let bytes, let revision, let id):
                if revision <= acknowledgement.revision {
                    framing.append(bytes, to: &writeBuffer)
                } else if let failure = acknowledgement.failureForLostWrite(revision, id) {
                    framing.append(failure, to: &writeBuffer)
                } else {
                    waitingForRevision = revision
                    items[head] = item
                    return compactItems()
                }
            }
            pendingBytes -= item.byteCount
            head += 1
        }
        compactItems()
    }
}
