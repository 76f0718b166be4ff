// Messages as an AsyncSequence, for `for await` code.

extension ObservableObject where Message: Sendable {
    /// The messages this object sends from now on, as an asynchronous
    /// sequence.
    ///
    /// ```swift
    /// for await update in number.updates { print(update.new) }
    /// ```
    ///
    /// The sequence ends when this object dies or the iterating task is
    /// cancelled. Messages wait in an unbounded buffer until they are
    /// consumed.
    public var messages: AsyncStream<Message> {
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self)
        let feed = StreamFeed(continuation)
        let observer = FreeObserver()
        observer.observe(self) { message in feed.yield(message) }
        continuation.onTermination = { _ in observer.stopObserving() }
        return stream
    }
}

extension Var where Value: Sendable {
    /// The updates of this variable from now on, as an asynchronous sequence;
    /// the same as ``ObservableObject/messages``.
    public var updates: AsyncStream<Update<Value>> {
        messages
    }
}

/// Feeds an `AsyncStream` from an observation, and finishes the stream when
/// the observation's handler is released: when the observed object dies or
/// the observation stops.
private final class StreamFeed<Element: Sendable>: Sendable {
    private let continuation: AsyncStream<Element>.Continuation

    init(_ continuation: AsyncStream<Element>.Continuation) {
        self.continuation = continuation
    }

    deinit {
        continuation.finish()
    }

    func yield(_ element: Element) {
        continuation.yield(element)
    }
}
