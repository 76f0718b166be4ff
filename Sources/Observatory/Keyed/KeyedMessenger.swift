import ObservatoryLocking

/// A messenger whose messages each belong to a key, so that an observer can
/// observe one key alone.
///
/// Think of a store of many entries: most observers care about one entry, and
/// should neither receive nor filter the changes of all the others.
///
/// ```swift
/// let changes = KeyedMessenger<String, Change> { $0.key }
/// observer.observe(changes, key: "kitchen.light") { change in ... }
/// observer.observe(changes) { change in ... }     // every key
/// changes.send(Change(key: "kitchen.light", ...))
/// ```
///
/// Routing a message to the observers of its key costs one dictionary lookup,
/// however many keys are observed. Observers of one key receive its messages
/// in send order, as observers of all keys do.
///
/// ## Threads
/// `lock` guards the per-key messengers; observations of a key start and end
/// under it (lock order: this lock, then a messenger core's). Messages reach
/// the per-key messengers from inside this messenger's own serialized
/// delivery, which keeps their order.
public final class KeyedMessenger<Key: Hashable, Message>: ObservableObject, Observer {
    /// Delivers every message, whatever its key.
    public let messenger = Messenger<Message>()
    /// Holds the observation that routes messages to their keys.
    public let receiver = Receiver()

    private let keyOfMessage: (Message) -> Key
    private let lock = Lock()
    private var messengersByKey: [Key: Messenger<Message>] = [:]
    /// The number of keys at the last sweep of unobserved keys; the next sweep
    /// comes when the dictionary has doubled, keeping sweeps amortized O(1).
    private var countAtLastSweep = 0

    /// Creates a keyed messenger.
    ///
    /// - Parameter key: Tells the key of a message.
    public init(key: @escaping (Message) -> Key) {
        keyOfMessage = key
        observe(messenger) { [weak self] message, author in
            self?.route(message, from: author)
        }
    }

    private func route(_ message: Message, from author: AnyAuthor) {
        let key = keyOfMessage(message)
        guard let keyMessenger = existingMessenger(for: key) else { return }
        keyMessenger.send(message, from: author)
    }

    /// Runs `body` with the messenger of one key's messages, made on first
    /// use, under the lock: so that an observation started in `body` cannot
    /// attach to a messenger that is being released as unobserved.
    func withMessenger(for key: Key, _ body: (Messenger<Message>) -> Void) {
        lock.locked {
            if let existing = messengersByKey[key] {
                body(existing)
                return
            }
            sweepUnobservedKeysIfDue()
            let created = Messenger<Message>()
            messengersByKey[key] = created
            body(created)
        }
    }

    /// The messenger of one key, if the key has one.
    func existingMessenger(for key: Key) -> Messenger<Message>? {
        lock.locked { messengersByKey[key] }
    }

    /// Ends a receiver's observations of one key, and drops the key's
    /// messenger once nobody observes it, both under the lock.
    func stopObserving(key: Key, by receiver: Receiver) {
        lock.locked {
            guard let keyMessenger = messengersByKey[key] else { return }
            keyMessenger.core.removeObservations(of: receiver.link)
            if keyMessenger.core.observationCount == 0 {
                messengersByKey[key] = nil
            }
        }
    }

    /// Must be called with the lock held.
    private func sweepUnobservedKeysIfDue() {
        guard messengersByKey.count >= max(64, countAtLastSweep * 2) else { return }
        messengersByKey = messengersByKey.filter { $0.value.core.observationCount > 0 }
        countAtLastSweep = messengersByKey.count
    }

    /// The number of keys that have a messenger, for tests.
    var keyCount: Int {
        lock.locked { messengersByKey.count }
    }
}

/// The per-key messengers live under the lock; messages go through messengers.
extension KeyedMessenger: @unchecked Sendable where Key: Sendable, Message: Sendable {}

extension Observer {
    /// Observes the messages of one key of a keyed messenger.
    public func observe<Key, Message>(
        _ keyedMessenger: KeyedMessenger<Key, Message>,
        key: Key,
        receive: @escaping (Message) -> Void
    ) {
        keyedMessenger.withMessenger(for: key) { observe($0, receive: receive) }
    }

    /// Observes the messages of one key of a keyed messenger, with their
    /// authors.
    public func observe<Key, Message>(
        _ keyedMessenger: KeyedMessenger<Key, Message>,
        key: Key,
        receive: @escaping (Message, AnyAuthor) -> Void
    ) {
        keyedMessenger.withMessenger(for: key) { observe($0, receive: receive) }
    }

    /// Tells whether this observer observes one key of a keyed messenger.
    public func isObserving<Key, Message>(_ keyedMessenger: KeyedMessenger<Key, Message>, key: Key) -> Bool {
        guard let keyMessenger = keyedMessenger.existingMessenger(for: key) else { return false }
        return isObserving(keyMessenger)
    }

    /// Ends this observer's observations of one key of a keyed messenger.
    public func stopObserving<Key, Message>(_ keyedMessenger: KeyedMessenger<Key, Message>, key: Key) {
        keyedMessenger.stopObserving(key: key, by: receiver)
    }
}
