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
/// takes again, until nothing is left: then its turn ends. Taking swaps arrays,
/// so queueing and sending allocate nothing once the arrays have grown. As in the core
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

    /// The deliveries queued and not taken yet, oldest first.
    private var queued: [Item] = []
    /// The revision of the oldest queued delivery, if any is queued.
    private var oldestQueuedRevision: Int64?
    /// The revision of the oldest delivery taken by the sender and not known to be done yet.
    private var oldestTakenRevision: Int64?
    /// An empty array whose memory the next turn reuses: the queue and the sender
    /// swap arrays instead of allocating one per turn.
    private var spare: [Item] = []
    /// Whether a thread is the sender.
    private(set) var isSending = false

    /// Queues the delivery of a change at `revision` (under the store's lock, in
    /// revision order).
    mutating func enqueue(_ item: Item, revision: Int64) -> Action {
        if queued.isEmpty { oldestQueuedRevision = revision }
        queued.append(item)
        guard !isSending else { return .leaveToSender }
        isSending = true
        return .startSending
    }

    /// The sender's input: everything taken before is delivered, and `batch`, which
    /// held it, is empty. Fills `batch` with what is queued meanwhile, oldest
    /// first, to deliver next; leaving it empty ends the sender's turn.
    mutating func take(into batch: inout [Item]) {
        precondition(isSending && batch.isEmpty, "only the sender takes deliveries, into an empty batch")
        guard !queued.isEmpty else {
            oldestTakenRevision = nil
            isSending = false
            if batch.capacity > spare.capacity { swap(&batch, &spare) }
            return
        }
        oldestTakenRevision = oldestQueuedRevision
        oldestQueuedRevision = nil
        swap(&batch, &queued)
        if queued.capacity < spare.capacity { swap(&queued, &spare) }
    }

    /// The revision up to which every change has reached its handlers, given the
    /// last `applied` one: all of them while nobody sends, else every change
    /// before the oldest delivery under way or queued.
    func deliveredRevision(applied: Int64) -> Int64 {
        guard isSending, let oldest = oldestTakenRevision ?? oldestQueuedRevision else { return applied }
        return oldest - 1
    }
}
