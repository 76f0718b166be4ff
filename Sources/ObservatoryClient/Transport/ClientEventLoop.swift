import ObservatorySockets

/// The client's one I/O thread's tools: it serves a link on a non-blocking
/// socket (reads, writes what the link has queued, and calls a tick for timers),
/// and sleeps between connection attempts; other threads wake it.
///
/// It waits with a `SocketWaiter` (`poll(2)` and a wake-up pipe), the same on
/// Linux and on Apple platforms: one socket needs no epoll set.
///
/// Threads: everything but ``wake()`` is confined to the thread that runs the
/// client (as the server's `EventLoop` is to its own), which is why it can be
/// `@unchecked Sendable`: other threads only ever call `wake()`, which writes
/// to the waiter's pipe and is safe from any thread.
final class ClientEventLoop: @unchecked Sendable {
    private let waiter: SocketWaiter
    /// One read's buffer, reused: only the loop's thread reads.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates the waiter.
    /// - Throws: `SocketError` when the process is out of file descriptors for its pipe.
    init() throws(SocketError) {
        waiter = try SocketWaiter()
    }

    /// Makes a current or the next wait return; safe from any thread.
    func wake() {
        waiter.wake()
    }

    /// Waits until `deadline`, or until woken.
    func sleep(until deadline: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        guard deadline > now else { return }
        _ = try? waiter.wait(for: [], timeoutMilliseconds: Self.milliseconds(deadline - now))
    }

    /// Serves `link` on `socket` until the link ends, then closes the socket and
    /// finishes the link (its `onEnd`, then its waiting requests fail).
    ///
    /// Each turn it writes what the link has queued (as much as the socket takes),
    /// waits for input, a wake-up or `tick(interval)`'s answer (the longest wait
    /// until its next timer), hands input to the link in order, and calls `tick`.
    /// A write that makes no progress for `sendTimeout` ends the link.
    @discardableResult
    func run(
        _ link: ServerLink, on socket: SocketConnection, sendTimeout: Duration,
        tick: () -> Duration
    ) -> DisconnectReason {
        let reason = serve(link, on: socket, sendTimeout: sendTimeout, tick: tick)
        socket.close()
        link.finish(reason)
        return link.endReason ?? reason
    }

    private func serve(
        _ link: ServerLink, on socket: SocketConnection, sendTimeout: Duration, tick: () -> Duration
    ) -> DisconnectReason {
        var output = Output()
        var wait = tick()
        while true {
            output.append(link.takeOutput())
            if let failure = output.flush(to: socket, sendTimeout: sendTimeout) { return failure }
            if let requested = link.endReason { return requested }
            let interest: SocketWaiter.Interest = output.isEmpty ? [.readable] : [.readable, .writable]
            let watch = SocketWaiter.Watch(socket.descriptor, for: interest)
            // A stalled write must be looked at again by its deadline, even with no timer due.
            let timeout = output.isEmpty ? wait : min(wait, sendTimeout)
            let isReadable: Bool
            do {
                let outcome = try waiter.wait(for: [watch], timeoutMilliseconds: Self.milliseconds(timeout))
                isReadable = outcome.ready.contains { $0.readable || $0.hungUp }
            } catch {
                return .connectionFailed(error.description)
            }
            if isReadable, let ended = read(from: socket, into: link) { return ended }
            wait = tick()
        }
    }

    /// Reads until the socket has nothing more (a bounded number of times, so
    /// that timers and writes get their turn), and then tells the link it
    /// paused; returns why the connection ended, if it did.
    private func read(from socket: SocketConnection, into link: ServerLink) -> DisconnectReason? {
        for _ in 0..<16 {
            let outcome: StreamSocket.Received
            do throws(SocketError) {
                // `withUnsafeMutableBytes` rethrows untyped errors; the `Result` keeps the type.
                outcome = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(SocketError) in try socket.receive(into: bytes) }
                }.get()
            } catch {
                return .connectionFailed(error.description)
            }
            switch outcome {
            case .bytes(let count):
                link.receive(Array(buffer[0..<count]))
                if link.endReason != nil { return nil }
            case .closed: return .closedByServer
            case .wouldBlock:
                link.readPaused()
                return nil
            }
        }
        // Past the bound, the link hears of a pause too: a run waits no longer than a turn.
        link.readPaused()
        return nil
    }

    /// `duration` as a poll timeout: whole milliseconds, rounded up, at least 1.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: max(1, Int64((duration.seconds * 1_000).rounded(.up))))
    }

    /// The bytes the link queued that the socket has not taken yet.
    private struct Output {
        private var bytes: [UInt8] = []
        private var sent = 0
        /// When the socket last refused to take more, while bytes were waiting.
        private var stalledSince: ContinuousClock.Instant?

        var isEmpty: Bool { sent == bytes.count }

        mutating func append(_ more: [UInt8]) {
            guard !more.isEmpty else { return }
            if isEmpty {
                bytes = more
                sent = 0
            } else {
                bytes += more
            }
        }

        /// Sends what the socket takes; returns why the link must end, if it must.
        mutating func flush(to socket: SocketConnection, sendTimeout: Duration) -> DisconnectReason? {
            while !isEmpty {
                let count: Int
                do throws(SocketError) {
                    let offset = sent
                    count = try bytes.withUnsafeBytes { raw in
                        Result { () throws(SocketError) in
                            try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                        }
                    }.get()
                } catch {
                    return .connectionFailed(error.description)
                }
                guard count > 0 else { return stalled(on: socket, sendTimeout: sendTimeout) }
                sent += count
                stalledSince = nil
            }
            bytes.removeAll(keepingCapacity: true)
            sent = 0
            return nil
        }

        private mutating func stalled(on socket: SocketConnection, sendTimeout: Duration) -> DisconnectReason? {
            let now = ContinuousClock.now
            guard let since = stalledSince else {
                stalledSince = now
                return nil
            }
            guard now - since >= sendTimeout else { return nil }
            let error = socket.named(SocketError.timedOut("send"), "write to")
            return .connectionFailed(error.description)
        }
    }
}
