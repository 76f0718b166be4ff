/// The transforms of one observation, applied on the fly before its handler.
///
/// Start one with ``Observer/observe(_:)`` and end the chain with a handler;
/// the observation starts then:
///
/// ```swift
/// observer.observe(numbers).map {
///     "\($0)"              // Int -> String
/// }.filter {
///     $0.count > 1         // only numbers of two digits or more
/// }.receive { text, author in
///     print(text, author)
/// }
/// ```
///
/// Every transform except the ones that end in a handler returns a new
/// `AdhocTransform`; authors pass through unchanged.
public struct AdhocTransform<Message> {
    /// Registers the final handler with the observed object, behind all
    /// transforms of the chain.
    @usableFromInline
    let connect: (@escaping (Message, AnyAuthor) -> Void) -> Void

    @inlinable
    init(connect: @escaping (@escaping (Message, AnyAuthor) -> Void) -> Void) {
        self.connect = connect
    }

    /// The one step every transform is made of: turn a message and its author
    /// into an output, or into `nil` to drop the message.
    @inlinable
    func pipe<Output>(
        _ step: @escaping (Message, AnyAuthor) -> Output?
    ) -> AdhocTransform<Output> {
        AdhocTransform<Output> { handler in
            connect { message, author in
                if let output = step(message, author) { handler(output, author) }
            }
        }
    }

    // MARK: Ending the chain

    /// Ends the chain: starts the observation with a handler of messages.
    @inlinable
    public func receive(_ receive: @escaping (Message) -> Void) {
        connect { message, _ in receive(message) }
    }

    /// Ends the chain: starts the observation with a handler of messages and
    /// their authors.
    @inlinable
    public func receive(_ receive: @escaping (Message, AnyAuthor) -> Void) {
        connect(receive)
    }

    // MARK: Map

    /// Transforms every message, often into another type.
    @inlinable
    public func map<Output>(_ transform: @escaping (Message) -> Output) -> AdhocTransform<Output> {
        pipe { message, _ in transform(message) }
    }

    /// Transforms every message and ends the chain in a handler.
    @inlinable
    public func map<Output>(
        _ transform: @escaping (Message) -> Output,
        receive: @escaping (Output) -> Void
    ) {
        map(transform).receive(receive)
    }

    /// Transforms every message and ends the chain in a handler that also
    /// takes the author.
    @inlinable
    public func map<Output>(
        _ transform: @escaping (Message) -> Output,
        receive: @escaping (Output, AnyAuthor) -> Void
    ) {
        map(transform).receive(receive)
    }

    // MARK: Filter

    /// Lets through only the messages for which `isIncluded` returns `true`.
    @inlinable
    public func filter(_ isIncluded: @escaping (Message) -> Bool) -> AdhocTransform<Message> {
        pipe { message, _ in isIncluded(message) ? message : nil }
    }

    /// Filters messages and ends the chain in a handler.
    @inlinable
    public func filter(
        _ isIncluded: @escaping (Message) -> Bool,
        receive: @escaping (Message) -> Void
    ) {
        filter(isIncluded).receive(receive)
    }

    /// Filters messages and ends the chain in a handler that also takes the
    /// author.
    @inlinable
    public func filter(
        _ isIncluded: @escaping (Message) -> Bool,
        receive: @escaping (Message, AnyAuthor) -> Void
    ) {
        filter(isIncluded).receive(receive)
    }

    // MARK: Authors

    /// Lets through only the messages whose author passes `isIncluded`.
    @inlinable
    public func filterAuthor(_ isIncluded: @escaping (AnyAuthor) -> Bool) -> AdhocTransform<Message> {
        pipe { message, author in isIncluded(author) ? message : nil }
    }

    /// Filters by author and ends the chain in a handler.
    @inlinable
    public func filterAuthor(
        _ isIncluded: @escaping (AnyAuthor) -> Bool,
        receive: @escaping (Message) -> Void
    ) {
        filterAuthor(isIncluded).receive(receive)
    }

    /// Filters by author and ends the chain in a handler that also takes the
    /// author.
    @inlinable
    public func filterAuthor(
        _ isIncluded: @escaping (AnyAuthor) -> Bool,
        receive: @escaping (Message, AnyAuthor) -> Void
    ) {
        filterAuthor(isIncluded).receive(receive)
    }

    /// Lets through only the messages of one author, held weakly: once it is
    /// gone, nothing passes.
    @inlinable
    public func from(_ selectedAuthor: AnyAuthor) -> AdhocTransform<Message> {
        filterAuthor { [weak selectedAuthor] author in author === selectedAuthor }
    }

    /// Keeps only one author's messages and ends the chain in a handler.
    @inlinable
    public func from(_ selectedAuthor: AnyAuthor, receive: @escaping (Message) -> Void) {
        from(selectedAuthor).receive(receive)
    }

    /// Keeps only one author's messages and ends the chain in a handler that
    /// also takes the author.
    @inlinable
    public func from(_ selectedAuthor: AnyAuthor, receive: @escaping (Message, AnyAuthor) -> Void) {
        from(selectedAuthor).receive(receive)
    }

    /// Lets through the messages of every author but one, held weakly: once it
    /// is gone, everything passes.
    ///
    /// An observer that changes shared state as an author uses it to ignore
    /// its own changes: `observe(shared).notFrom(self) { ... }`.
    @inlinable
    public func notFrom(_ excludedAuthor: AnyAuthor) -> AdhocTransform<Message> {
        filterAuthor { [weak excludedAuthor] author in author !== excludedAuthor }
    }

    /// Drops one author's messages and ends the chain in a handler.
    @inlinable
    public func notFrom(_ excludedAuthor: AnyAuthor, receive: @escaping (Message) -> Void) {
        notFrom(excludedAuthor).receive(receive)
    }

    /// Drops one author's messages and ends the chain in a handler that also
    /// takes the author.
    @inlinable
    public func notFrom(_ excludedAuthor: AnyAuthor, receive: @escaping (Message, AnyAuthor) -> Void) {
        notFrom(excludedAuthor).receive(receive)
    }
}

// MARK: - Equatable messages

extension AdhocTransform where Message: Equatable {
    /// Lets through only messages equal to `message`, as `Void`: the handler
    /// takes no message argument.
    @inlinable
    public func select(_ message: Message) -> AdhocTransform<Void> {
        pipe { candidate, _ in candidate == message ? () : nil }
    }

    /// Selects one message and ends the chain in a handler without arguments.
    @inlinable
    public func select(_ message: Message, receive: @escaping () -> Void) {
        select(message).receive { _ in receive() }
    }

    /// Selects one message and ends the chain in a handler of the author.
    @inlinable
    public func select(_ message: Message, receive: @escaping (AnyAuthor) -> Void) {
        select(message).receive { _, author in receive(author) }
    }

    /// Drops every message that equals the one let through before it, so the
    /// handler sees only distinct consecutive messages.
    @inlinable
    public func distinct() -> AdhocTransform<Message> {
        var previous: Message?
        return pipe { message, _ in
            defer { previous = message }
            return message == previous ? nil : message
        }
    }

    /// Drops consecutive duplicates and ends the chain in a handler.
    @inlinable
    public func distinct(receive: @escaping (Message) -> Void) {
        distinct().receive(receive)
    }

    /// Drops consecutive duplicates and ends the chain in a handler that also
    /// takes the author.
    @inlinable
    public func distinct(receive: @escaping (Message, AnyAuthor) -> Void) {
        distinct().receive(receive)
    }
}

// MARK: - Optional messages

extension AdhocTransform {
    /// Drops `nil` messages and lets the others through unwrapped.
    @inlinable
    public func unwrap<Wrapped>() -> AdhocTransform<Wrapped> where Message == Wrapped? {
        pipe { message, _ in message }
    }

    /// Unwraps messages and ends the chain in a handler.
    @inlinable
    public func unwrap<Wrapped>(receive: @escaping (Wrapped) -> Void) where Message == Wrapped? {
        unwrap().receive(receive)
    }

    /// Unwraps messages and ends the chain in a handler that also takes the
    /// author.
    @inlinable
    public func unwrap<Wrapped>(receive: @escaping (Wrapped, AnyAuthor) -> Void) where Message == Wrapped? {
        unwrap().receive(receive)
    }

    /// Replaces `nil` messages with a default.
    @inlinable
    public func unwrap<Wrapped>(_ defaultMessage: Wrapped) -> AdhocTransform<Wrapped> where Message == Wrapped? {
        map { $0 ?? defaultMessage }
    }

    /// Replaces `nil` messages with a default and ends the chain in a handler.
    @inlinable
    public func unwrap<Wrapped>(
        _ defaultMessage: Wrapped,
        receive: @escaping (Wrapped) -> Void
    ) where Message == Wrapped? {
        unwrap(defaultMessage).receive(receive)
    }

    /// Replaces `nil` messages with a default and ends the chain in a handler
    /// that also takes the author.
    @inlinable
    public func unwrap<Wrapped>(
        _ defaultMessage: Wrapped,
        receive: @escaping (Wrapped, AnyAuthor) -> Void
    ) where Message == Wrapped? {
        unwrap(defaultMessage).receive(receive)
    }

    /// Turns every ``Update`` into its new value.
    @inlinable
    public func new<Value>() -> AdhocTransform<Value> where Message == Update<Value> {
        map { $0.new }
    }

    /// Takes updates' new values and ends the chain in a handler.
    @inlinable
    public func new<Value>(receive: @escaping (Value) -> Void) where Message == Update<Value> {
        new().receive(receive)
    }

    /// Takes updates' new values and ends the chain in a handler that also
    /// takes the author.
    @inlinable
    public func new<Value>(receive: @escaping (Value, AnyAuthor) -> Void) where Message == Update<Value> {
        new().receive(receive)
    }
}
