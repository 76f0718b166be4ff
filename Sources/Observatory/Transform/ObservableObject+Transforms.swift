// Stand-alone transforms: observable objects made from other observable
// objects. The ad hoc forms, applied inside one observation, are the methods
// of `AdhocTransform`.

extension ObservableObject {
    /// A transform that sends every message mapped by `transform`.
    public func map<Output>(_ transform: @escaping (Message) -> Output) -> Map<Self, Output> {
        Map(origin: self, transform: transform)
    }

    /// A transform that lets through only the messages `isIncluded` accepts.
    public func filter(_ isIncluded: @escaping (Message) -> Bool) -> Filter<Self> {
        Filter(origin: self) { message, _ in isIncluded(message) ? message : nil }
    }

    /// A transform that lets through only the messages whose author
    /// `isIncluded` accepts.
    public func filterAuthor(_ isIncluded: @escaping (AnyAuthor) -> Bool) -> Filter<Self> {
        Filter(origin: self) { message, author in isIncluded(author) ? message : nil }
    }

    /// A transform that lets through only the messages of one author, which it
    /// holds weakly.
    public func from(_ selectedAuthor: AnyAuthor) -> Filter<Self> {
        filterAuthor { [weak selectedAuthor] author in author === selectedAuthor }
    }

    /// A transform that drops the messages of one author, which it holds
    /// weakly.
    public func notFrom(_ excludedAuthor: AnyAuthor) -> Filter<Self> {
        filterAuthor { [weak excludedAuthor] author in author !== excludedAuthor }
    }

    /// A transform that holds this object weakly; see ``Weak``.
    public func weak() -> Weak<Self> {
        Weak(self)
    }

    /// A transform that remembers the latest message; see ``Cache``.
    public func cache() -> Cache<Self, Message> {
        Cache(origin: self) { $0 }
    }

    /// A transform that drops `nil` messages and unwraps the others.
    public func unwrap<Wrapped>() -> Unwrap<Self, Wrapped> where Message == Wrapped? {
        Unwrap(origin: self) { message, _ in message }
    }

    /// A transform that replaces `nil` messages with a default.
    public func unwrap<Wrapped>(_ defaultMessage: Wrapped) -> Map<Self, Wrapped> where Message == Wrapped? {
        map { $0 ?? defaultMessage }
    }

    /// A transform that sends the new value of every ``Update``.
    public func new<Value>() -> Map<Self, Value> where Message == Update<Value> {
        map { $0.new }
    }
}

extension ObservableObject where Message: OptionalMessage {
    /// A transform that remembers the latest message of an observable of
    /// optionals, without making it doubly optional.
    public func cache() -> Cache<Self, Message.Wrapped> {
        Cache(origin: self) { $0.optional }
    }
}

extension ObservableObject where Message: Equatable {
    /// A transform that sends `Void` for every message equal to `message`, so
    /// that handlers take no argument.
    public func select(_ message: Message) -> Map<Filter<Self>, Void> {
        filter { $0 == message }.map { _ in () }
    }

    /// A transform that drops every message equal to the one it let through
    /// before, so observers see only distinct consecutive messages.
    public func distinct() -> Filter<Self> {
        let previous = Locked<Message?>(nil)
        return Filter(origin: self) { message, _ in
            previous.withLock { last in
                defer { last = message }
                return message == last ? nil : message
            }
        }
    }
}
