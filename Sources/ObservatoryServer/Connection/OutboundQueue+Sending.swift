// Sending from the write buffer: a flush takes the next bytes and counts them as
// sent in one step; only bytes the socket did not take come back (`putBack(_:)`).
extension OutboundQueue {
    /// What `takeForSending(acknowledging:)` took and counted as sent, for
    /// `putBack(_:)` if the socket takes less.
    struct UnconfirmedSend {
        /// How many bytes were taken.
        let count: Int
        /// The replay's allowance before they were counted as sent.
        let replayAllowance: Int
        /// The write buffer was emptied since (its bytes were all counted as sent).
        var isBufferEmptied = false
    }

    /// The bytes to send next, up to one chunk, or an empty slice when nothing is
    /// queued or the head waits for storage (then `waitingForRevision` says for what).
    ///
    /// Returns a slice that shares storage with the write buffer; send it, then call
    /// `markSent(_:)` with the count the socket took. With gated replies in the write
    /// buffer, only the bytes ahead of the first one still waiting go
    /// (`bytesBeforeGate(_:)`); the buffer is refilled only once it is all sent.
    mutating func nextBytes(acknowledging acknowledgement: Acknowledgement = .everything) -> ArraySlice<UInt8> {
        if writeOffset == writeBuffer.count {
            refillWriteBuffer(acknowledgement)
        }
        guard gatedReplies.isEmpty else { return bytesBeforeGate(acknowledgement) }
        return writeBuffer[writeOffset...]
    }

    /// Records that the first `count` bytes of `nextBytes()` were sent.
    mutating func markSent(_ count: Int) {
        writeOffset += count
        sentByteCount += count
        if replayAllowance > 0 { replayAllowance = max(0, replayAllowance - count) }
    }

    /// Takes the next bytes to send, as `nextBytes(acknowledging:)`, and counts
    /// them as sent at once, as `markSent(_:)` does once a send took them whole:
    /// the common case, which then needs no second step under the output's lock
    /// (callgrind: a lock, a look and a refill, about 200 instructions a `set`).
    /// Bytes the socket does not take must come back through `putBack(_:)`
    /// before the queue is taken from again.
    ///
    /// Meanwhile the queue counts them as sent: events queued on other threads
    /// during the send find up to one chunk less queued than there is, as they do
    /// once a send took it.
    mutating func takeForSending(acknowledging acknowledgement: Acknowledgement) -> ArraySlice<UInt8> {
        let bytes = nextBytes(acknowledging: acknowledgement)
        guard !bytes.isEmpty else {
            unconfirmedSend = nil
            return bytes
        }
        unconfirmedSend = UnconfirmedSend(count: bytes.count, replayAllowance: replayAllowance)
        markSent(bytes.count)
        return bytes
    }

    /// Gives back `unsent`, the end of the bytes `takeForSending` took last that
    /// the socket did not take: they are the next bytes to send, ahead of anything
    /// queued since. They are still in the write buffer, right before its unsent
    /// bytes, unless an event emptied the buffer meanwhile (it found every byte
    /// counted as sent); then they go back in at its front.
    mutating func putBack(_ unsent: ArraySlice<UInt8>) {
        guard let taken = unconfirmedSend, !unsent.isEmpty, unsent.count <= taken.count else { return }
        unconfirmedSend = nil
        if taken.isBufferEmptied {
            // Emptied with `writeOffset` at its end, and only the flush moves it: it is 0.
            writeBuffer.insert(contentsOf: unsent, at: writeOffset)
            // Replies gated since were written behind them.
            moveGates(by: unsent.count, from: 0)
        } else {
            writeOffset -= unsent.count
        }
        sentByteCount -= unsent.count
        replayAllowance = max(0, taken.replayAllowance - (taken.count - unsent.count))
    }
}
