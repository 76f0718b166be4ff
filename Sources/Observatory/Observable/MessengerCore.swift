import ObservatoryLocking
import Synchronization

/// The thread-safe heart of a ``Messenger``: its observations and the ordered
/// delivery of its messages.
///
/// ## Locking
/// `lock` guards `state`, and also the stored value of a ``Var``, so that
/// changing a value and queueing its update happen in one step. The lock is
/// held only to read or change that state, never while a handler runs. Lock
/// order: a core's lock before a receiver link's lock. (The state lives behind a
/// pointer, not in stored `var`s, so that its accesses, all made under the
/// lock, skip Swift's dynamic exclusivity checks.)
///
/// ## Order of delivery
/// One thread at a time delivers (`isDelivering`). A send that finds another
/// delivery under way queues its message and returns; the delivering thread
/// delivers the queued messages in order before it stops. So messages arrive in
/// send order, handlers of one messenger never run concurrently, and a send
/// never waits for a handler.
@usableFromInline
final class MessengerCore<Message>: ObservationRegistry, @unchecked Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var table = ObservationTable<Message>()
        @usableFromInline var queue = MessageQueue<Message>()
        @usableFromInline var isDelivering = false
        /// Set when the messenger dies: nothing is delivered or added after.
        @usableFromInline var isClosed = false
        /// Receivers whose observations ended during the current delivery
        /// turn: they receive nothing more, even from snapshots taken before.
        @usableFromInline var receiversRemovedWhileDelivering: [ObjectIdentifier] = []
        /// `removeObservations(of:)` compiled for `Message`, made by the first
        /// observation added (see `prepareSpecializedRemoval()`).
        @usableFromInline var specializedRemoval: ((ReceiverLink) -> Void)?
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let state: UnsafeMutablePointer<State>
    /// Counts removals of observations, so that a delivery notices one with a
    /// cheap atomic read and only then asks which receivers went.
    @usableFromInline let removals = Atomic<Int>(0)

    @usableFromInline
    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Sending

    /// Delivers a message to every observation, or queues it behind the
    /// delivery under way.
    @inlinable
    func send(_ message: Message, from author: AnyAuthor) {
        guard let snapshot = lock.locked({ startDelivery(orQueue: message, from: author) }) else { return }
        deliver(message, from: author, to: snapshot)
        deliverQueuedMessages()
    }

    /// The handlers to deliver one message to, as they were when the message's
    /// turn came, and the removal count at that moment: both read under the
    /// lock, so that a removal right after is noticed.
    @usableFromInline
    struct Snapshot {
        @usableFromInline let handlers: ObservationTable<Message>.Handlers
        @usableFromInline let removalCount: Int

        @inlinable
        init(handlers: ObservationTable<Message>.Handlers, removalCount: Int) {
            self.handlers = handlers
            self.removalCount = removalCount
        }
    }

    /// Must be called with the lock held.
    @inlinable
    func takeSnapshot() -> Snapshot {
        Snapshot(handlers: state.pointee.table.handlers, removalCount: removals.load(ordering: .relaxed))
    }

    /// Runs `produce` under the lock and sends what it returns, if anything.
    ///
    /// A value holder uses this to change its state and queue the matching
    /// update atomically, so that concurrent changes are delivered in the order
    /// they were made.
    @inlinable
    func send(from author: AnyAuthor, producedBy produce: () -> Message?) {
        // Bound straight from the locked call, not taken apart from a
        // variable: destructuring an optional tuple copied the snapshot's
        // handler lists and released the originals, two more reference count
        // round trips per list and send.
        guard
            let delivery: (message: Message, snapshot: Snapshot) = lock.locked({
                guard let message = produce(),
                    let snapshot = startDelivery(orQueue: message, from: author)
                else { return nil }
                return (message, snapshot)
            })
        else { return }
        deliver(delivery.message, from: author, to: delivery.snapshot)
        deliverQueuedMessages()
    }

    /// Runs `body` with the lock held, for state this lock guards.
    @inlinable
    func locked<Result>(_ body: () -> Result) -> Result {
        lock.locked(body)
    }

    /// Must be called with the lock held. Returns the table to deliver to when
    /// the caller becomes the delivering thread, or `nil` after queueing the
    /// message (or dropping it, once closed).
    @inlinable
    func startDelivery(orQueue message: Message, from author: AnyAuthor) -> Snapshot? {
        if state.pointee.isClosed { return nil }
        if state.pointee.isDelivering {
            state.pointee.queue.append(message, from: author)
            return nil
        }
        state.pointee.isDelivering = true
        return takeSnapshot()
    }

    @inlinable
    func deliver(_ message: Message, from author: AnyAuthor, to snapshot: Snapshot) {
        snapshot.handlers.deliver(message, from: author) { receiver in
            removals.load(ordering: .relaxed) == snapshot.removalCount || isStillObserved(by: receiver)
        }
    }

    @inlinable
    func deliverQueuedMessages() {
        while let (next, snapshot) = takeQueuedMessage() {
            deliver(next.message, from: next.author, to: snapshot)
        }
    }

    /// Takes the next queued message, or ends this thread's delivery turn when
    /// there is none.
    @inlinable
    func takeQueuedMessage() -> (MessageQueue<Message>.Entry, Snapshot)? {
        lock.locked {
            guard !state.pointee.isClosed, let next = state.pointee.queue.takeFirst() else {
                state.pointee.isDelivering = false
                // Only when some went: emptying an empty array still releases
                // its storage, once per send.
                if !state.pointee.receiversRemovedWhileDelivering.isEmpty {
                    state.pointee.receiversRemovedWhileDelivering.removeAll()
                }
                return nil
            }
            return (next, takeSnapshot())
        }
    }

    @usableFromInline
    func isStillObserved(by receiver: ObjectIdentifier) -> Bool {
        lock.locked {
            !state.pointee.isClosed && !state.pointee.receiversRemovedWhileDelivering.contains(receiver)
        }
    }

    // MARK: Observations

    /// Adds a handler of messages for a receiver.
    @inlinable
    func add(_ receive: @escaping (Message) -> Void, for receiver: Receiver) {
        lock.locked {
            guard registerObservation(of: receiver.link) else { return }
            let slot = state.pointee.table.add(
                ObservationTable<Message>.MessageHandler(receiver: receiver.link, receive: receive))
            receiver.link.remember(self, slot: slot)
            prepareSpecializedRemoval()
        }
    }

    /// Adds a handler of messages and authors for a receiver.
    @inlinable
    func add(_ receive: @escaping (Message, AnyAuthor) -> Void, for receiver: Receiver) {
        lock.locked {
            guard registerObservation(of: receiver.link) else { return }
            let slot = state.pointee.table.add(
                ObservationTable<Message>.AuthorHandler(receiver: receiver.link, receive: receive))
            receiver.link.remember(self, slot: slot)
            prepareSpecializedRemoval()
        }
    }

    /// Must be called with the lock held, from code inlined where `Message` is
    /// known: the closure made here runs `removeObservations` specialized for it.
    ///
    /// A receiver that dies or stops everything reaches this core through
    /// `ObservationRegistry`, whose witness runs the generic code, where every
    /// step of a removal looks up the metadata of a generic type (the table, its
    /// handlers, the removed ones): about 3,600 instructions a removal, which made
    /// 100,000 observers of one messenger take over 100 ms to die.
    @inlinable
    func prepareSpecializedRemoval() {
        guard state.pointee.specializedRemoval == nil else { return }
        // Unowned: the closure is kept by this core and never outlives it.
        state.pointee.specializedRemoval = { [unowned self] receiver in removeObservations(of: receiver) }
    }

    /// Ends a receiver's observations when it dies or stops them all (through
    /// `ObservationRegistry`, in generic code): by the specialized removal that
    /// its observations prepared, else by the generic one.
    @usableFromInline
    func endObservations(of receiver: ReceiverLink) {
        guard let remove = lock.locked({ state.pointee.specializedRemoval }) else {
            return removeObservations(of: receiver)
        }
        remove(receiver)
    }

    /// Must be called with the lock held, before a handler is added (the caller
    /// then tells the receiver the handler's slot, in the same critical section,
    /// so that it can end its observations when it dies). Returns `false` once closed.
    @inlinable
    func registerObservation(of receiver: ReceiverLink) -> Bool {
        guard !state.pointee.isClosed else { return false }
        if !state.pointee.receiversRemovedWhileDelivering.isEmpty {
            state.pointee.receiversRemovedWhileDelivering.removeAll { $0 == ObjectIdentifier(receiver) }
        }
        return true
    }

    @inlinable
    func hasObservations(of receiver: Receiver) -> Bool {
        receiver.link.knows(self)
    }

    @inlinable
    func removeObservations(of receiver: ReceiverLink) {
        var removed = ObservationTable<Message>.RemovedHandlers()
        lock.locked {
            guard let slots = receiver.forgetSlots(in: self) else { return }
            removed = state.pointee.table.removeHandlers(at: slots.first, slots.more, of: self)
            noteRemoval(of: receiver)
        }
        // Handlers are released here, outside the lock: releasing a closure can
        // end the life of objects it captured, whose deinit may call back in.
        // Explicitly, in this specialized code: left to the end of the scope, an
        // optional of them was destroyed through generic value witnesses (an
        // observe and a stop took 1,156 instructions then, 1,101 now).
        removed.release()
    }

    /// Must be called with the lock held.
    @inlinable
    func noteRemoval(of receiver: ReceiverLink) {
        if state.pointee.isDelivering {
            state.pointee.receiversRemovedWhileDelivering.append(ObjectIdentifier(receiver))
        }
        // Under the lock, like the snapshots' reads of it.
        removals.add(1, ordering: .relaxed)
    }

    func removeAllObservations() {
        let removed = lock.locked { takeAllObservations() }
        withExtendedLifetime(removed) {}
    }

    /// Ends all observations for good; the messenger is dying.
    func close() {
        let removed = lock.locked {
            state.pointee.isClosed = true
            state.pointee.queue.removeAll()
            return takeAllObservations()
        }
        withExtendedLifetime(removed) {}
    }

    /// Must be called with the lock held.
    private func takeAllObservations() -> ObservationTable<Message> {
        let removed = state.pointee.table
        state.pointee.table = ObservationTable()
        for receiver in removed.receivers {
            noteRemoval(of: receiver)
            receiver.forget(self)
        }
        return removed
    }

    /// The number of live observations. Inlinable, so that it is specialized for
    /// the message type: a generic call reads the table through type metadata.
    @inlinable
    var observationCount: Int {
        lock.locked { state.pointee.table.count }
    }
}
