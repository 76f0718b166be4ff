import ObservatoryHTTP

/// How an `OutboundQueue` writes each frame into its write buffer: as the line
/// protocol's line, or as one WebSocket text message carrying the line.
///
/// A WebSocket connection's queue switches to text messages once the web face
/// only wraps lines (`HTTPConnectionMachine.takesQueueFramed`). Its events then
/// cost what a TCP client's do: the 2–10-byte header is written in front of the
/// event's shared bytes, copied once from where the store encoded them, the LF
/// dropped by length (a server's frames are unmasked), and the buffer goes to the
/// socket as it is, where the web face used to cut it into lines and copy each.
enum OutboundFraming: Sendable {
    /// docs/protocol.md's frames, LF-terminated.
    case lines
    /// One unmasked final text frame per line, without its LF.
    case webSocketText

    /// Appends `frame` (a whole line, LF included) in this framing.
    @inline(__always)
    func append(_ frame: [UInt8], to buffer: inout [UInt8]) {
        guard case .webSocketText = self else { return buffer.append(contentsOf: frame) }
        let payloadCount = frame.last == UInt8(ascii: "\n") ? frame.count - 1 : frame.count
        WebSocketFrameEncoder.appendTextHeader(payloadCount: payloadCount, to: &buffer)
        frame.withUnsafeBufferPointer { buffer.append(contentsOf: $0[..<payloadCount]) }
    }

    /// Appends the event of `change` in this framing, from its shared encoding;
    /// inlined into the queue, where it runs once per event per observer.
    @inline(__always)
    func append(_ change: StoreChange, to buffer: inout [UInt8]) {
        guard case .webSocketText = self else { return change.appendFrame(to: &buffer) }
        // Every event frame ends with its LF, which the message leaves out.
        WebSocketFrameEncoder.appendTextHeader(payloadCount: change.frameByteCount - 1, to: &buffer)
        change.appendFrame(to: &buffer, withoutLineFeed: true)
    }
}
