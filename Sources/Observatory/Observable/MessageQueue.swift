/// Messages waiting for delivery while a messenger is busy delivering an
/// earlier one: first in, first out.
@usableFromInline
struct MessageQueue<Message> {
    @usableFromInline
    struct Entry {
        @usableFromInline let message: Message
        @usableFromInline let author: AnyAuthor

        @inlinable
        init(message: Message, author: AnyAuthor) {
            self.message = message
            self.author = author
        }
    }

    @usableFromInline var entries: [Entry] = []
    /// Index of the next entry to take; taken entries are dropped in bulk once
    /// the queue runs empty, so taking is O(1).
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    mutating func append(_ message: Message, from author: AnyAuthor) {
        entries.append(Entry(message: message, author: author))
    }

    @inlinable
    mutating func takeFirst() -> Entry? {
        guard head < entries.count else {
            if !entries.isEmpty { removeAll() }
            return nil
        }
        defer { head += 1 }
        return entries[head]
    }

    @inlinable
    mutating func removeAll() {
        entries.removeAll()
        head = 0
    }
}
