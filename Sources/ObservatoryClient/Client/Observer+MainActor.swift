import Observatory

extension Observer {
    /// Starts receiving the messages of an observable object in a handler
    /// that runs on the main actor: for UI code and `@MainActor` models.
    ///
    /// The handler is `@MainActor`, so the compiler lets it change main-actor
    /// state and checks everything it calls. The messages must arrive on the
    /// main queue, as a client's mirrors, ``ObservatoryClient/connectionState``
    /// and ``ObservatoryClient/errors`` send them when
    /// ``ClientConfiguration/deliveryQueue`` is `.main`, the default on Apple
    /// platforms. A message that arrives elsewhere stops the program
    /// with a message naming that setting, instead of racing the main actor.
    ///
    /// ```swift
    /// @MainActor final class DoorModel: Observer {
    ///     let receiver = Receiver()
    ///     var isLocked = false
    ///
    ///     init(client: ObservatoryClient) {
    ///         observeOnMainActor(client.variable("door.locked", default: false)) { [weak self] update in
    ///             self?.isLocked = update.new
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - observable: The object to observe.
    ///   - receive: Called on the main actor with every message, in send order.
    public func observeOnMainActor<Object: ObservableObject>(
        _ observable: Object, _ receive: @escaping @MainActor (Object.Message) -> Void
    ) where Object.Message: Sendable {
        observe(observable) { (message: Object.Message) in
            MainActorDelivery.run { receive(message) }
        }
    }

    /// Starts receiving the messages of an observable object, with their
    /// authors, in a handler that runs on the main actor; see
    /// `observeOnMainActor(_:_:)`.
    ///
    /// - Parameters:
    ///   - observable: The object to observe.
    ///   - receive: Called on the main actor with every message and its author, in send order.
    public func observeOnMainActor<Object: ObservableObject>(
        _ observable: Object, _ receive: @escaping @MainActor (Object.Message, AnyAuthor) -> Void
    ) where Object.Message: Sendable {
        observe(observable) { (message: Object.Message, author: AnyAuthor) in
            let author = UncheckedAuthor(author)
            MainActorDelivery.run { receive(message, author.author) }
        }
    }
}

/// An author passed to a main-actor handler on the thread it already runs on.
private struct UncheckedAuthor: @unchecked Sendable {
    let author: AnyAuthor

    init(_ author: AnyAuthor) {
        self.author = author
    }
}
