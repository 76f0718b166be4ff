/// The order in which the store's changes reach observers' handlers, as a plain
/// value: which thread sends, what it sends next, and how far every change has
/// reached its handlers.
///
/// The store decides a change under its lock and queues its delivery here in
/// the same step (`enqueue`), so deliveries are queued in revision order. The
/// handlers then run after that lock is released, on one thread at a time, the
/// *sender*: the first thread that queues while nobody sends becomes it
/// (`Action.startSending`); a thread that queues while another one sends leaves
/// its delivery to that one and goes on at once, never waiting for a handler.
/// The sender takes what is queued (`take`) and sends it holding no lock, then
/// takes again, until nothing is left: then its turn ends. As in the core
/// library's `Messenger`, so every observer receives the changes in revision
/// order, and a handler that takes long, or writes to the store itself, delays
/// only the deliveries behind it, not another thread's write.
///
/// Kept in the store's guarded state, so queueing costs no lock of its own.
struct DeliveryQueue<Item> {
    /// What the thread that queued a delivery does once it released the store's lock.
    enum Action: Equatable {
        /// Nobody was sending: this thread is the sender now, and takes until
        /// `take` returns nothing.
        case startSending
        /// Another thread is sending and takes this delivery in its turn.
        case leaveToSender
    }

    /// The deliveries queued and not taken yet, oldest first, with their revisions.
    private var queued: [(item: Item, revision: Int64)] = []
    /// The revision of the oldest delivery taken by the sender and not known to be done yet.
    private var oldestTakenRevision: Int64?
    /// Whether a thread is the sender.
    private(set) var isSending = false

    /// Queues the delivery of a change at `revision` (under the store's lock, in
    /// revision order).
    mutating func enqueue(_ item: Item, revision: Int64) -> Action {
        queued.append((item, revision))
        guard !isSending else { return .leaveToSender }
        isSending = true
        return .startSending
    }

    /// The sender's input: everything taken before is delivered. Returns what is
    /// queued meanwhile, oldest first, to deliver next; nothing ends its turn.
    mutating func take() -> [Item] {
        precondition(isSending, "only the sender takes deliveries")
        guard let first = queued.first else {
            oldestTakenRevision = nil
            isSending = false
            return []
        }
        oldestTakenRevision = first.revision
        defer { queued.removeAll(keepingCapacity: true) }
        return queued.map(\.item)
    }

    /// The revision up to which every change has reached its handlers, given the
    /// last `applied` one: all of them while nobody sends, else every change
    /// before the oldest delivery under way or queued.
    func deliveredRevision(applied: Int64) -> Int64 {
        guard isSending, let oldest = oldestTakenRevision ?? queued.first?.revision else { return applied }
        return oldest - 1
    }
}
