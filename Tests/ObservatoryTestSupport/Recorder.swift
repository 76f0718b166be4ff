import Observatory
import ObservatoryClient
import ObservatoryWire

/// Records every message an observable sends, with its author, from any
/// thread: the one recorder of the test kit, for the client's and the command-line tool's tests.
///
///     let seen = Recorder<Update<Int>>()
///     seen.record(counter)
///     counter <- 1
///     await client.waitUntilDelivered()
///     #expect(seen.messages.map(\.new) == [1])
public final class Recorder<Message: Sendable>: Observer, Sendable {
    private struct Entry {
        let message: Message
        let author: ObjectIdentifier
        let remoteAuthor: Author?
        let reset: Reset?
    }

    /// The observer's receiver, for the core library.
    public let receiver = Receiver()
    private let recorded = Locked<[Entry]>([])

    /// An empty recorder.
    public init() {}

    /// Records every message of `observable`.
    public func record<O: ObservableObject>(_ observable: O) where O.Message == Message {
        observe(observable) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    /// Records the messages of `observable` that `excluded` did not author.
    public func record<O: ObservableObject>(_ observable: O, notFrom excluded: AnyAuthor) where O.Message == Message {
        observe(observable).notFrom(excluded) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    private func append(_ message: Message, _ author: AnyAuthor) {
        let entry = Entry(
            message: message, author: ObjectIdentifier(author), remoteAuthor: author as? Author, reset: author as? Reset
        )
        recorded.withLock { $0.append(entry) }
    }

    /// The messages, in the order they came.
    public var messages: [Message] { recorded.withLock { $0.map(\.message) } }
    /// The authors that were a session's `Author` (nil for other authors).
    public var remoteAuthors: [Author?] { recorded.withLock { $0.map(\.remoteAuthor) } }
    /// Every author's identity.
    public var authors: [ObjectIdentifier] { recorded.withLock { $0.map(\.author) } }
    /// The authors that were a ``Reset`` (nil for other authors).
    public var resets: [Reset?] { recorded.withLock { $0.map(\.reset) } }
    /// How many messages came.
    public var count: Int { recorded.withLock { $0.count } }
}
