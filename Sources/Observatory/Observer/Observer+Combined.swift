// Combined observation: one handler for two or three observables. When one
// of them sends, the handler gets that message together with the latest
// messages of the others, which is why they must be caches.

extension Observer {
    /// Observes two caches with one handler.
    ///
    /// ```swift
    /// dog.observe(bowl, doorbell) { food, sound in ... }
    /// ```
    public func observe<A: ObservableCache, B: ObservableCache>(
        _ first: A,
        _ second: B,
        receive: @escaping (A.Message, B.Message) -> Void
    ) {
        observe(first, second) { firstMessage, secondMessage, _ in receive(firstMessage, secondMessage) }
    }

    /// Observes two caches with one handler that also takes the author of the
    /// message that triggered it.
    public func observe<A: ObservableCache, B: ObservableCache>(
        _ first: A,
        _ second: B,
        receive: @escaping (A.Message, B.Message, AnyAuthor) -> Void
    ) {
        // Each handler holds the other observable weakly, so the two do not
        // keep each other alive.
        observe(first) { [weak second] message, author in
            guard let second else { return }
            receive(message, second.latestMessage, author)
        }
        observe(second) { [weak first] message, author in
            guard let first else { return }
            receive(first.latestMessage, message, author)
        }
    }

    /// Observes three caches with one handler.
    ///
    /// ```swift
    /// dog.observe(tv, bowl, doorbell) { image, food, sound in ... }
    /// ```
    public func observe<A: ObservableCache, B: ObservableCache, C: ObservableCache>(
        _ first: A,
        _ second: B,
        _ third: C,
        receive: @escaping (A.Message, B.Message, C.Message) -> Void
    ) {
        observe(first, second, third) { firstMessage, secondMessage, thirdMessage, _ in
            receive(firstMessage, secondMessage, thirdMessage)
        }
    }

    /// Observes three caches with one handler that also takes the author of
    /// the message that triggered it.
    public func observe<A: ObservableCache, B: ObservableCache, C: ObservableCache>(
        _ first: A,
        _ second: B,
        _ third: C,
        receive: @escaping (A.Message, B.Message, C.Message, AnyAuthor) -> Void
    ) {
        observe(first) { [weak second, weak third] message, author in
            guard let second, let third else { return }
            receive(message, second.latestMessage, third.latestMessage, author)
        }
        observe(second) { [weak first, weak third] message, author in
            guard let first, let third else { return }
            receive(first.latestMessage, message, third.latestMessage, author)
        }
        observe(third) { [weak first, weak second] message, author in
            guard let first, let second else { return }
            receive(first.latestMessage, second.latestMessage, message, author)
        }
    }
}
