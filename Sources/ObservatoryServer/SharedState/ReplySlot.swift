import ObservatoryWire

/// The place of an answer the shared state gives later, in the `OutboundQueue`
/// of the connection that asked: a cluster node's write or batch, answered once
/// etcd decided it and the node applied its revision, or a resuming `observe`
/// whose changes the node reads back from etcd.
///
/// The session hands one to every write and observation it asks the state for;
/// a state that answers at once ignores it. A state that answers later returns
/// it (`WriteReply.pending`, `ObservationStart.pending`) and, once it knows the
/// answer, calls `answer(_:)` from whatever thread learned it. Only the first
/// answer to a slot counts; a later one (a timeout that lost the race) is ignored.
///
/// Small and Sendable, with no lock of its own: the output it answers into and
/// the slot's number among its session's. `answer(_:)` reads the output's
/// connection under the output's lock (the connection's one lock) and hands the
/// answer to that connection's own event loop (`EventLoop.execute`), where the
/// session takes it as an input and the queue's machine fills the slot
/// (`Connection.receive(_:into:)`); the reply then waits for the revision gate
/// like any other. Nothing waits on the slot itself.
struct ReplySlot: Sendable {
    /// What the state answers into a slot.
    enum Answer: Sendable, Equatable {
        /// A write's or a batch's reply fields, or its error.
        case reply(Result<ReplyPayload, WireError>)
        /// A resume answered `resumed:true` at `revision`, followed by `changes`:
        /// the target's changes after the resume point, oldest first, encoded.
        case replay([StoreChange], through: Int64)
        /// A resume answered `resumed:false` with the snapshot `values` taken at `revision`.
        case snapshot([RawValueEntry], at: Int64)
    }

    /// The output whose queue holds the slot.
    let output: ConnectionOutput
    /// The slot's number among its session's (they count up).
    let number: Int

    /// Hands `answer` to the slot's connection, on that connection's event loop;
    /// dropped if the connection has closed. Call it once the answer is final:
    /// the reply may go out as soon as the revision gate lets it.
    func answer(_ answer: Answer) {
        output.answer(answer, into: number)
    }
}
