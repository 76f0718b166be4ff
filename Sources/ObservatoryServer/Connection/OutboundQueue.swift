import ObservatoryWire

/// The bytes waiting to go out on one connection: replies and events in order,
/// whole frames only, with the slow-consumer rules of PROTOCOL.md.
///
/// A plain value; `ConnectionOutput` keeps it behind a lock. Frames move from the
/// pending items into a write buffer in chunks; the socket layer sends from the write
/// buffer, so a frame is never interleaved with another.
///
/// - Queued bytes above `maxQueuedBytes` make the queue coalesce its pending events
///   per key (first `old`, latest new value and version). It then keeps merging new
///   events into the pending one of their key, in O(1), until it has drained.
/// - If coalescing is not enough, everything pending is replaced by one error
///   `slow_consumer` with `"id":null`, and the queue takes nothing more
///   (`isFailed`): the connection is closed once that error is out.
/// - While `holdEvents()` is in effect, events wait aside, so a reply (an `observe`
///   snapshot) goes out before events that arrived while it was being made.
struct OutboundQueue {
    /// What happened to an event handed to the queue.
    enum EventOutcome: Equatable {
        /// It is queued (possibly merged into a pending event of its key).
        case queued
        /// The queue overflowed even after coalescing: the connection must be closed.
        case slowConsumer
    }

    private enum Item {
        case frame([UInt8])
        case change(StoreChange)

        var byteCount: Int {
            switch self {
            case .frame(let bytes): bytes.count
            case .change(let change): change.frame.count
            }
        }
    }

    /// Queued bytes beyond which events are coalesced, then the connection dropped.
    let maxQueuedBytes: Int
    /// How many bytes are moved into the write buffer at a time.
    let chunkBytes: Int

    private var items: [Item?] = []
    private var head = 0
    private var pendingBytes = 0
    private var writeBuffer: [UInt8] = []
    private var writeOffset = 0
    /// While coalescing: the position in `items` of the pending event of each key.
    private var coalescingIndex: [String: Int]?
    private var heldEvents: [StoreChange] = []
    private var isHolding = false
    /// Set after a slow-consumer failure: only the error frame remains to be sent.
    private(set) var isFailed = false
    /// Bytes sent so far, to tell a client that still reads from one that stopped.
    private(set) var sentByteCount = 0

    /// Creates an empty queue.
    ///
    /// Bytes in the write buffer are committed and can no longer be coalesced, so by
    /// default a chunk is at most a quarter of `maxQueuedBytes`: the rest stays
    /// available to the pending events that coalescing can shrink.
    init(maxQueuedBytes: Int, chunkBytes: Int? = nil) {
        self.maxQueuedBytes = maxQueuedBytes
        self.chunkBytes = chunkBytes ?? min(65_536, max(256, maxQueuedBytes / 4))
    }

    /// Bytes queued and not yet sent.
    var queuedBytes: Int {
        writeBuffer.count - writeOffset + pendingBytes
    }

    /// Whether every queued byte has been sent.
    var isEmpty: Bool {
        queuedBytes == 0
    }

    /// Whether events are being coalesced (the queue overflowed and has not drained since).
    var isCoalescing: Bool {
        coalescingIndex != nil
    }

    /// Queues a complete frame (a reply or the shutdown event), LF included. Never coalesced.
    mutating func appendFrame(_ frame: [UInt8]) {
        guard !isFailed else { return }
        items.append(.frame(frame))
        pendingBytes += frame.count
    }

    /// Queues an event, coalescing or failing when over the limit.
    mutating func appendEvent(_ change: StoreChange) -> EventOutcome {
        guard !isFailed else { return .slowConsumer }
        if isHolding {
            heldEvents.append(change)
            return .queued
        }
        return enqueue(change)
    }

    /// Makes events wait until `releaseEvents()`.
    mutating func holdEvents() {
        isHolding = true
    }

    /// Queues the events that waited, after whatever was queued meanwhile.
    mutating func releaseEvents() -> EventOutcome {
        isHolding = false
        let waiting = heldEvents
        heldEvents = []
        for change in waiting where enqueue(change) == .slowConsumer {
            return .slowConsumer
        }
        return isFailed ? .slowConsumer : .queued
    }

    private mutating func enqueue(_ change: StoreChange) -> EventOutcome {
        if let position = coalescingIndex?[change.key], case .change(let pending)? = items[position] {
            let merged = pending.coalesced(with: change)
            pendingBytes += merged.frame.count - pending.frame.count
            items[position] = .change(merged)
        } else {
            items.append(.change(change))
            pendingBytes += change.frame.count
            coalescingIndex?[change.key] = items.count - 1
        }
        guard queuedBytes > maxQueuedBytes else { return .queued }
        if coalescingIndex == nil {
            coalescePendingEvents()
            if queuedBytes <= maxQueuedBytes { return .queued }
        }
        failSlowConsumer()
        return .slowConsumer
    }

    /// Merges every pending event into the first pending event of its key.
    private mutating func coalescePendingEvents() {
        var merged: [Item?] = []
        var index: [String: Int] = [:]
        for case let item? in items[head...] {
            guard case .change(let change) = item else {
                merged.append(item)
                continue
            }
            if let position = index[change.key], case .change(let pending)? = merged[position] {
                merged[position] = .change(pending.coalesced(with: change))
            } else {
                index[change.key] = merged.count
                merged.append(item)
            }
        }
        items = merged
        head = 0
        pendingBytes = merged.reduce(0) { $0 + ($1?.byteCount ?? 0) }
        coalescingIndex = index
    }

    private mutating func failSlowConsumer() {
        let error = WireError(
            code: .slowConsumer,
            message: "this connection fell more than \(maxQueuedBytes) bytes behind its events; it is closed"
        )
        var frame = Reply.failure(id: nil, error).encoded()
        frame.append(UInt8(ascii: "\n"))
        items = [.frame(frame)]
        head = 0
        pendingBytes = frame.count
        coalescingIndex = nil
        heldEvents = []
        isFailed = true
    }

    /// The bytes to send next, up to one chunk, or an empty slice when nothing is queued.
    ///
    /// Returns a slice that shares storage with the write buffer; send it, then call
    /// `markSent(_:)` with the count the socket took.
    mutating func nextBytes() -> ArraySlice<UInt8> {
        if writeOffset == writeBuffer.count {
            refillWriteBuffer()
        }
        return writeBuffer[writeOffset...]
    }

    /// Records that the first `count` bytes of `nextBytes()` were sent.
    mutating func markSent(_ count: Int) {
        writeOffset += count
        sentByteCount += count
    }

    private mutating func refillWriteBuffer() {
        writeBuffer.removeAll(keepingCapacity: writeBuffer.capacity <= chunkBytes * 2)
        writeOffset = 0
        while head < items.count, writeBuffer.count < chunkBytes {
            guard let item = items[head] else {
                head += 1
                continue
            }
            switch item {
            case .frame(let bytes):
                writeBuffer.append(contentsOf: bytes)
            case .change(let change):
                writeBuffer.append(contentsOf: change.frame)
                if coalescingIndex?[change.key] == head { coalescingIndex?[change.key] = nil }
            }
            pendingBytes -= item.byteCount
            items[head] = nil
            head += 1
        }
        compactItems()
    }

    private mutating func compactItems() {
        if head == items.count {
            items.removeAll(keepingCapacity: items.capacity <= 256)
            head = 0
            coalescingIndex = nil
        } else if head > 1_024, head * 2 > items.count {
            items.removeFirst(head)
            if let index = coalescingIndex {
                coalescingIndex = index.mapValues { $0 - head }
            }
            head = 0
        }
    }
}
