/// A WebSocket's output once it only wraps lines: the connection's queue then
/// writes each line as a text message itself (`OutboundFraming.webSocketText`),
/// and its bytes go to the socket as they are, next to the machine's own frames
/// (the 101 before, pongs and the close frame).
///
/// The connection switches the queue in the same lock hold in which it takes the
/// queue's write buffer whole, when `canTakeQueueFramed` holds: an open WebSocket
/// that owes nothing (its `hello` answered), whose lines would all be wrapped
/// alike. Then it asks `nextSource` before every send and reports each send with
/// `markSent(_:)`, so that a pong never lands inside a message the queue's bytes
/// had begun, and a WebSocket that closed sends no more messages.
extension HTTPConnectionMachine {
    /// Where the next bytes to send come from, once the queue frames messages.
    enum OutputSource: Equatable {
        /// `pendingWire`: the machine's own frames.
        case wire
        /// The queue's bytes, sent as they are.
        case queue
        /// The queue's bytes are dropped: the WebSocket is closing or closed.
        case droppedQueue
    }

    /// Whether the queue may write text messages itself from now on.
    var canTakeQueueFramed: Bool {
        !takesQueueFramed && outputMode == .webSocket && expectations.isEmpty && isWebSocketOpen
    }

    /// Records that the queue writes text messages from now on.
    mutating func takeQueueFramed() {
        takesQueueFramed = true
    }

    /// Where the next bytes come from: the rest of a message the queue's bytes
    /// began; else the machine's frames; else the queue's messages while the
    /// WebSocket is open, which are dropped once it is not.
    var nextSource: OutputSource {
        if isQueueMessageUnfinished { return .queue }
        if !pendingWire.isEmpty { return .wire }
        return outputMode == .webSocket && isWebSocketOpen ? .queue : .droppedQueue
    }

    /// Records that `count` bytes from `source` go to the socket next.
    mutating func handOut(_ source: OutputSource, count: Int) {
        queueBytesHandedOut = source == .queue && count > 0 ? count : nil
    }

    /// Records that the socket took `count` bytes of what was handed out last:
    /// of `pendingWire`, or of the queue (the caller marks them sent there).
    ///
    /// - Returns: whether they were the queue's.
    @discardableResult
    mutating func markSent(_ count: Int) -> Bool {
        if let handedOut = queueBytesHandedOut {
            queueBytesHandedOut = nil
            isQueueMessageUnfinished = count < handedOut
            return true
        }
        wireOffset += count
        if wireOffset == wire.count {
            wire.removeAll(keepingCapacity: wire.capacity <= 1 << 17)
            wireOffset = 0
        }
        return false
    }
}
