/// The handlers of a messenger's observations, in the order they were added;
/// removing a receiver's handlers takes O(1), since its link knows their slots.
///
/// Handlers are stored bare, by their shape, next to the link of the receiver
/// that owns them: one entry of 24 bytes per observation, contiguous for fast
/// delivery. A removed handler leaves a hole, skipped by deliveries, unless it
/// was the last (then it is cut off with the holes before it); once holes
/// make up half of the entries, the lists are compacted in one pass, so removal
/// is amortized O(1) while the order of the others holds. (Before, every
/// removal scanned and shifted the whole list: 100,000 observers dying took
/// minutes.) A delivery works on a copy of `handlers`, which costs two
/// reference increments however many observers there are.
@usableFromInline
struct ObservationTable<Message> {
    @usableFromInline
    struct MessageHandler: ReceivedBy {
        @usableFromInline let receiver: ReceiverLink
        @usableFromInline let receive: (Message) -> Void

        @inlinable
        init(receiver: ReceiverLink, receive: @escaping (Message) -> Void) {
            self.receiver = receiver
            self.receive = receive
        }
    }

    @usableFromInline
    struct AuthorHandler: ReceivedBy {
        @usableFromInline let receiver: ReceiverLink
        @usableFromInline let receive: (Message, AnyAuthor) -> Void

        @inlinable
        init(receiver: ReceiverLink, receive: @escaping (Message, AnyAuthor) -> Void) {
            self.receiver = receiver
            self.receive = receive
        }
    }

    /// The handlers as deliveries see them: in order, with holes where handlers were removed.
    @usableFromInline
    struct Handlers {
        @usableFromInline var messageHandlers: [MessageHandler?] = []
        @usableFromInline var authorHandlers: [AuthorHandler?] = []

        @inlinable
        init() {}

        /// Calls every handler with a message, skipping receivers for which
        /// `isStillObserving` answers `false`.
        @inlinable
        func deliver(
            _ message: Message, from author: AnyAuthor, skippingUnless isStillObserving: (ObjectIdentifier) -> Bool
        ) {
            Self.forEachLive(messageHandlers, isStillObserving) { $0.pointee?.receive(message) }
            Self.forEachLive(authorHandlers, isStillObserving) { $0.pointee?.receive(message, author) }
        }

        /// Calls `call` with the place of every handler whose receiver still
        /// observes. Handlers are read where they are: copying one out would
        /// retain and release its receiver, whose reference count, one per
        /// observer, is rarely in the cache.
        @inlinable
        static func forEachLive<Handler: ReceivedBy>(
            _ list: [Handler?], _ isStillObserving: (ObjectIdentifier) -> Bool,
            _ call: (UnsafePointer<Handler?>) -> Void
        ) {
            list.withUnsafeBufferPointer { handlers in
                guard let first = handlers.baseAddress else { return }
                for slot in first..<first + handlers.count {
                    guard let receiver = slot.pointee.map({ ObjectIdentifier($0.receiver) }), isStillObserving(receiver)
                    else { continue }
                    call(slot)
                }
            }
        }
    }

    @usableFromInline var handlers = Handlers()
    /// Removed handlers not yet compacted away.
    @usableFromInline var holes = 0

    @inlinable
    init() {}

    // A slot names a handler's place: `2 × index` in `messageHandlers`,
    // `2 × index + 1` in `authorHandlers`. Each receiver's link keeps the slots of
    // its handlers (`ReceiverLink.remember(_:slot:)`), so the table needs no index
    // of its own and an observation costs no more memory than its handler.

    /// Adds a handler of messages after the others; returns its slot.
    @inlinable
    mutating func add(_ handler: MessageHandler) -> Int {
        handlers.messageHandlers.append(handler)
        return 2 * (handlers.messageHandlers.count - 1)
    }

    /// Adds a handler of messages and authors after the others; returns its slot.
    @inlinable
    mutating func add(_ handler: AuthorHandler) -> Int {
        handlers.authorHandlers.append(handler)
        return 2 * (handlers.authorHandlers.count - 1) + 1
    }

    /// Removes the handlers at `slot` and `moreSlots` in O(1) each (amortized,
    /// counting the compaction); returns them, so that the caller can release them
    /// outside its lock. Compaction tells the receivers of the handlers it moves
    /// where they went (`registry` is this table's owner).
    @inlinable
    mutating func removeHandlers(at slot: Int, _ moreSlots: [Int], of registry: some ObservationRegistry)
        -> RemovedHandlers
    {
        var removed = RemovedHandlers()
        take(slot, into: &removed)
        for other in moreSlots { take(other, into: &removed) }
        compactIfMostlyHoles(of: registry)
        return removed
    }

    @inlinable
    mutating func take(_ slot: Int, into removed: inout RemovedHandlers) {
        if slot % 2 == 0 {
            removed.messageHandlers.add(Self.take(slot / 2, from: &handlers.messageHandlers, holes: &holes))
        } else {
            removed.authorHandlers.add(Self.take(slot / 2, from: &handlers.authorHandlers, holes: &holes))
        }
    }

    /// Takes the handler at `index` out of `list`. The last handler, the one an
    /// observation that starts and soon stops removes, is cut off with any holes
    /// before it; others leave a hole, so that no other handler moves.
    @inlinable
    static func take<Handler>(_ index: Int, from list: inout [Handler?], holes: inout Int) -> Handler? {
        guard index == list.count - 1 else {
            let handler = list[index]
            list[index] = nil
            holes += 1
            return handler
        }
        let handler = list.removeLast()
        while let last = list.last, last == nil {
            list.removeLast()
            holes -= 1
        }
        return handler
    }

    /// Handlers taken out of a table, held until they may be released.
    @usableFromInline
    struct RemovedHandlers {
        @usableFromInline var messageHandlers = Extracted<MessageHandler>()
        @usableFromInline var authorHandlers = Extracted<AuthorHandler>()

        @inlinable
        init() {}

        /// Releases the handlers now (see `MessengerCore.removeObservations(of:)`).
        @inlinable
        mutating func release() {
            messageHandlers.release()
            authorHandlers.release()
        }
    }

    /// Elements taken out of a list. The first is held inline, since a receiver
    /// rarely has more than one handler: taking it allocates nothing.
    @usableFromInline
    struct Extracted<Element> {
        @usableFromInline var first: Element?
        @usableFromInline var others: [Element] = []

        @inlinable
        init() {}

        /// Drops the elements it holds.
        @inlinable
        mutating func release() {
            first = nil
            if !others.isEmpty { others = [] }
        }

        @inlinable
        mutating func add(_ element: Element?) {
            guard let element else { return }
            if first == nil {
                first = element
            } else {
                others.append(element)
            }
        }
    }

    /// Once half the entries are holes, removes them in one pass, in place, and
    /// tells each moved handler's receiver its new slot: O(n) once for every n/2
    /// removals.
    @inlinable
    mutating func compactIfMostlyHoles(of registry: some ObservationRegistry) {
        let entries = handlers.messageHandlers.count + handlers.authorHandlers.count
        guard holes >= 32, holes * 2 >= entries else { return }
        Self.compact(&handlers.messageHandlers, tag: 0, of: registry)
        Self.compact(&handlers.authorHandlers, tag: 1, of: registry)
        holes = 0
    }

    @inlinable
    static func compact<Handler: ReceivedBy>(_ list: inout [Handler?], tag: Int, of registry: some ObservationRegistry)
    {
        var kept = 0
        for index in list.indices {
            guard let handler = list[index] else { continue }
            if kept != index {
                list[kept] = handler
                handler.receiver.moveSlot(in: registry, from: 2 * index + tag, to: 2 * kept + tag)
            }
            kept += 1
        }
        list.removeLast(list.count - kept)
    }

    /// The links of all receivers with handlers here; a receiver with several
    /// handlers appears several times.
    var receivers: [ReceiverLink] {
        handlers.messageHandlers.compactMap { $0?.receiver } + handlers.authorHandlers.compactMap { $0?.receiver }
    }

    @inlinable
    var count: Int {
        handlers.messageHandlers.count + handlers.authorHandlers.count - holes
    }
}

/// A handler of a table, which names the receiver that owns it.
@usableFromInline
protocol ReceivedBy {
    var receiver: ReceiverLink { get }
}
