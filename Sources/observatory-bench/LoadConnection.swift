import ObservatoryServer
import ObservatorySockets

/// One client connection of the load driver: a non-blocking socket, the requests
/// queued for it, and the start of a frame that the last read cut off.
///
/// Requests are appended to `output` and sent in one `send` per loop turn, so a
/// writer's window of requests costs one system call, not one each.
final class LoadConnection {
    let socket: StreamSocket
    /// Requests not yet taken by the kernel, from `outputStart` on.
    var output: [UInt8] = []
    private var outputStart = 0
    /// The bytes of an incomplete frame, put in front of the next read.
    var carry: [UInt8] = []
    /// Whether the driver's poller watches this socket for room to write.
    var watchingWritable = false

    init(socket: StreamSocket) {
        self.socket = socket
        output.reserveCapacity(16_384)
    }

    var hasOutput: Bool { outputStart < output.count }

    /// Sends as much queued output as the socket takes now.
    ///
    /// - Returns: whether everything queued is sent.
    func flush() throws -> Bool {
        // Bounded: each pass sends something or stops.
        for _ in 0..<64 where hasOutput {
            let sent = try output.withUnsafeBytes { bytes in
                try socket.send(UnsafeRawBufferPointer(rebasing: bytes[outputStart...]))
            }
            guard sent > 0 else { break }
            outputStart += sent
        }
        guard !hasOutput else { return false }
        output.removeAll(keepingCapacity: true)
        outputStart = 0
        return true
    }
}
