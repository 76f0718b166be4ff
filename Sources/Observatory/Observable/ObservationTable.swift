/// The handlers of a messenger's observations, in the order they were added.
///
/// Handlers are stored bare, by their shape, next to the link of the receiver
/// that owns them: one entry of 24 bytes per observation, contiguous for fast
/// delivery. A delivery works on a copy, which costs two reference increments
/// however many observers there are. Finding a receiver's entries takes a
/// scan, which only removals do.
@usableFromInline
struct ObservationTable<Message> {
    @usableFromInline
    struct MessageHandler {
        @usableFromInline let receiver: ReceiverLink
        @usableFromInline let receive: (Message) -> Void

        @inlinable
        init(receiver: ReceiverLink, receive: @escaping (Message) -> Void) {
            self.receiver = receiver
            self.receive = receive
        }
    }

    @usableFromInline
    struct AuthorHandler {
        @usableFromInline let receiver: ReceiverLink
        @usableFromInline let receive: (Message, AnyAuthor) -> Void

        @inlinable
        init(receiver: ReceiverLink, receive: @escaping (Message, AnyAuthor) -> Void) {
            self.receiver = receiver
            self.receive = receive
        }
    }

    @usableFromInline var messageHandlers: [MessageHandler] = []
    @usableFromInline var authorHandlers: [AuthorHandler] = []

    @inlinable
    init() {}

    /// Removes every handler of a receiver; returns the removed ones, so that
    /// the caller can release them outside its lock, or `nil` if there were
    /// none.
    @inlinable
    mutating func removeHandlers(of receiver: ReceiverLink) -> RemovedHandlers? {
        let removed = RemovedHandlers(
            messageHandlers: Self.extract(from: &messageHandlers) { $0.receiver === receiver },
            authorHandlers: Self.extract(from: &authorHandlers) { $0.receiver === receiver }
        )
        return removed.isEmpty ? nil : removed
    }

    /// Handlers taken out of a table, held until they may be released.
    @usableFromInline
    struct RemovedHandlers {
        @usableFromInline let messageHandlers: Extracted<MessageHandler>
        @usableFromInline let authorHandlers: Extracted<AuthorHandler>

        @inlinable
        init(messageHandlers: Extracted<MessageHandler>, authorHandlers: Extracted<AuthorHandler>) {
            self.messageHandlers = messageHandlers
            self.authorHandlers = authorHandlers
        }

        @inlinable
        var isEmpty: Bool { messageHandlers.first == nil && authorHandlers.first == nil }
    }

    /// Elements taken out of an array. The first is held inline, since a
    /// receiver rarely has more than one handler: taking it allocates nothing.
    @usableFromInline
    struct Extracted<Element> {
        @usableFromInline var first: Element?
        @usableFromInline var others: [Element] = []

        @inlinable
        init() {}
    }

    /// Removes the matching elements in place, keeping the order of the
    /// others, and returns them.
    @inlinable
    static func extract<Element>(from elements: inout [Element], where matches: (Element) -> Bool) -> Extracted<Element> {
        var extracted = Extracted<Element>()
        var index = elements.endIndex
        while index > elements.startIndex {
            elements.formIndex(before: &index)
            guard matches(elements[index]) else { continue }
            let element = elements.remove(at: index)
            if extracted.first == nil {
                extracted.first = element
            } else {
                extracted.others.append(element)
            }
        }
        return extracted
    }

    /// The links of all receivers with handlers here; a receiver with several
    /// handlers appears several times.
    var receivers: [ReceiverLink] {
        messageHandlers.map(\.receiver) + authorHandlers.map(\.receiver)
    }

    @inlinable
    var count: Int {
        messageHandlers.count + authorHandlers.count
    }

    /// Calls every handler with a message, skipping receivers for which
    /// `isStillObserving` answers `false`.
    @inlinable
    func deliver(_ message: Message, from author: AnyAuthor, skippingUnless isStillObserving: (ReceiverLink) -> Bool) {
        // Borrowed buffers: iterating them takes no reference counting.
        messageHandlers.withUnsafeBufferPointer { handlers in
            for handler in handlers where isStillObserving(handler.receiver) {
                handler.receive(message)
            }
        }
        authorHandlers.withUnsafeBufferPointer { handlers in
            for handler in handlers where isStillObserving(handler.receiver) {
                handler.receive(message, author)
            }
        }
    }
}
