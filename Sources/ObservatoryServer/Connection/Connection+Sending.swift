// Sending: a flush takes the queue's bytes chunk by chunk and writes them to the
// socket, and ends with the queue's state, which says what the flush leads to.
extension Connection {
    /// Sends what the line protocol queued, up to `sendsPerTurn` chunks: one lock
    /// a chunk, which records the last one sent and takes the next. Leaves the
    /// queue's state after the last send in `look` (in place: no copy of it is
    /// returned) and returns whether the socket is full, or `nil` if sending
    /// failed (the connection is then closed).
    func sendLines(_ acknowledgement: OutboundQueue.Acknowledgement, into look: inout OutboundQueue.Look) -> Bool? {
        var bytes: ArraySlice<UInt8>
        (bytes, look) = output.startFlush(acknowledging: acknowledgement)
        for _ in 0..<Self.sendsPerTurn where !bytes.isEmpty {
            let sent: Int
            do {
                sent = try bytes.withUnsafeBytes { try socket.send($0) }
            } catch {
                sendFailed(error)
                return nil
            }
            let isPartial = sent < bytes.count
            // Dropped first: the next look refills the write buffer these bytes share.
            bytes = []
            (bytes, look) = output.sent(sent, thenTaking: !isPartial, acknowledging: acknowledgement)
            if isPartial { return true }
        }
        // Bytes left after the last chunk stay in the write buffer for the next flush;
        // not kept here, so that an event appended meanwhile does not copy the buffer.
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
