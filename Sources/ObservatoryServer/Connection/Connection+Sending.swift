// Sending: a flush takes the queue's bytes chunk by chunk and writes them to the
// socket, and ends with the queue's state, which says what the flush leads to.
extension Connection {
    /// Sends what the line protocol queued, up to `sendsPerTurn` chunks. One lock
    /// a chunk takes it, counted as sent, and the queue's state then; the flush
    /// takes the lock again only for more bytes the state showed (pending beyond
    /// the chunk, not waiting for storage or an answer) or to give back what the
    /// socket did not take. Leaves the queue's state after the last send in `look`
    /// (in place: no copy of it is returned) and returns whether the socket is
    /// full, or `nil` if sending failed (the connection is then closed).
    func sendLines(_ acknowledgement: OutboundQueue.Acknowledgement, into look: inout OutboundQueue.Look) -> Bool? {
        var bytes: ArraySlice<UInt8>
        (bytes, look) = output.startFlush(acknowledging: acknowledgement)
        var sends = 0
        while !bytes.isEmpty {
            let sent: Int
            do {
                sent = try bytes.withUnsafeBytes { try socket.send($0) }
            } catch {
                sendFailed(error)
                return nil
            }
            sends += 1
            if sent < bytes.count {
                look = output.sentPartly(leaving: bytes[(bytes.startIndex + sent)...])
                return true
            }
            // Dropped first: the next take may refill the write buffer these bytes share.
            bytes = []
            // Events queued during the send asked for a flush of their own.
            guard sends < Self.sendsPerTurn, !look.isEmpty, look.waitingForRevision == nil, !look.isWaitingForAnswer
            else { break }
            (bytes, look) = output.takeNext(acknowledging: acknowledgement)
        }
        // Bytes left after the last chunk stay in the write buffer for the next flush.
        return false
    }

    /// Sends what the web face has for the wire, up to `sendsPerTurn` chunks,
    /// like `sendLines(_:into:)`.
    func sendWeb(_ acknowledgement: OutboundQueue.Acknowledgement, into look: inout OutboundQueue.Look) -> Bool? {
        output.flushStarted()
        var isSocketFull = false
        for _ in 0..<Self.sendsPerTurn {
            let bytes = nextBytesToSend(acknowledgement)
            guard !bytes.isEmpty else { break }
            let sent: Int
            do {
                sent = try bytes.withUnsafeBytes { try socket.send($0) }
            } catch {
                sendFailed(error)
                return nil
            }
            markSent(sent)
            if sent < bytes.count {
                isSocketFull = true
                output.flushDeferredToSocket()
                break
            }
        }
        look = output.withQueue { $0.look }
        return isSocketFull
    }
}
