/// The author of a message: any object.
///
/// Observers compare authors by identity (`===`), which is how an observer
/// recognises, and usually ignores, the changes it made itself.
public typealias AnyAuthor = AnyObject

/// An object that other objects can observe.
///
/// Having a ``Messenger`` is what makes an object observable: the messenger
/// keeps the observations and delivers the messages. A class becomes observable
/// by owning one:
///
/// ```swift
/// final class Sky: ObservableObject {
///     let messenger = Messenger<Color>()
/// }
/// ```
///
/// Starting an observation never triggers a message by itself. Messages reach
/// every observer in exactly the order in which `send` was called, also when an
/// observer sends further messages from inside its handler, and also when
/// several threads send at once.
public protocol ObservableObject: AnyObject {
    /// The type of the messages this object sends to its observers.
    associatedtype Message

    /// The messenger that keeps this object's observations and delivers its
    /// messages.
    var messenger: Messenger<Message> { get }
}

extension ObservableObject {
    /// Sends a message to all observers, with this object as its author.
    ///
    /// - Parameter message: The message to deliver.
    @inlinable
    public func send(_ message: Message) {
        messenger.core.send(message, from: self)
    }

    /// Sends a message to all observers on behalf of an author.
    ///
    /// Observers can receive the author and filter by it, for example to ignore
    /// the changes they made themselves (``AdhocTransform/notFrom(_:)``).
    ///
    /// - Parameters:
    ///   - message: The message to deliver.
    ///   - author: The object that caused the message.
    @inlinable
    public func send(_ message: Message, from author: AnyAuthor) {
        messenger.core.send(message, from: author)
    }

    /// Ends every observation of this object.
    public func stopBeingObserved() {
        messenger.core.removeAllObservations()
    }

    /// Ends every observation of this object by one observer.
    ///
    /// - Parameter observer: The observer that stops receiving messages.
    public func stopBeingObserved(by observer: any Observer) {
        messenger.core.removeObservations(of: observer.receiver.link)
    }
}
