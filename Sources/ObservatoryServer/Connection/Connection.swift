import Observatory
import Dispatch
import ObservatoryWire

/// One client connection: the thin Dispatch shell that carries a `Session`'s
/// decisions out on a non-blocking socket.
///
/// All socket work of a connection happens on its serial I/O queue, which it shares
/// with other connections (the server has a few, never one per connection). A
/// Dispatch read source feeds received bytes to the session; replies and events
/// leave through the `ConnectionOutput` in whole frames; when the socket is full a
/// write source resumes sending once it drains. A client that stops reading stalls
/// only itself: its events are coalesced or it is closed as a slow consumer, and
/// reading from it pauses while its replies pile up.
///
/// ## Locking
/// `session` and `io` are each behind a `Locked` box; both are used only on the I/O
/// queue, so the locks are uncontended and exist to make the type `Sendable`.
final class Connection: Sendable {
    private struct IO {
        var readSource: (any DispatchSourceRead)?
        var writeSource: (any DispatchSourceWrite)?
        var isReadPaused = false
        var isWriteActive = false
        var isClosing = false
        var isClosed = false
        var cancelledSources = 0
        /// The revision storage will call back for (see `waitForStorage`), so a
        /// connection waits on it once, not once per flush attempt.
        var awaitedRevision: Int64?
        /// The session stopped answering with frames still buffered: reading is
        /// paused until the output drains, then the session answers the rest.
        var isBacklogged = false
        /// Too many bytes of unfinished frames are held server-wide, and this
        /// connection holds a large share: not read until the `InputBudget` resumes it.
        var isOverInputBudget = false
        /// Whether the `InputBudget` counts bytes for this connection (else an empty
        /// buffer needs no report: the common case costs no lock).
        var isHoldingInput = false
        /// When the client last sent bytes (uptime nanoseconds), for the idle timeout.
        var lastReceivedAt: UInt64 = DispatchTime.now().uptimeNanoseconds
    }

    /// The client's socket.
    let socket: StreamSocket
    /// The serial queue this connection's socket work runs on.
    let queue: DispatchQueue
    private let worker: IOWorker
    /// Replies and events on their way out.
    let output: ConnectionOutput
    /// The session id, for logs.
    let sessionID: String
    private let session: Locked<Session>
    private let io = Locked(IO())
    private let context: ServerContext
    private let onClose: @Sendable (Connection) -> Void
    private let closeGraceMilliseconds: Int

    /// Creates the connection; call `start()` to begin reading.
    init(
        socket: StreamSocket, worker: IOWorker, context: ServerContext,
        onClose: @escaping @Sendable (Connection) -> Void
    ) {
        self.socket = socket
        self.worker = worker
        queue = worker.queue
        self.context = context
        self.onClose = onClose
        closeGraceMilliseconds = max(100, context.configuration.shutdownGraceMilliseconds)
        let limits = context.configuration.limits
        let flushRequest = FlushRequest()
        let output = ConnectionOutput(
            maxQueuedBytes: limits.maxQueuedBytes, maxObservations: limits.maxObservationsPerConnection,
            requestFlush: { flushRequest.fire() })
        self.output = output
        let session = Session(context: context, output: output, peer: SocketAddress.peerDescription(of: socket.descriptor))
        sessionID = session.identity.session
        self.session = Locked(session)
        flushRequest.connect { [weak self] in
            guard let self else { return }
            self.worker.scheduleFlush(of: self)
        }
    }

    /// Starts reading.
    func start() {
        io.withLock { io in
            // Closed before it started (shutdown raced the accept): the descriptor is already closed.
            guard !io.isClosed else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
            source.setEventHandler { [self] in readAvailable() }
            source.setCancelHandler { [self] in sourceCancelled() }
            source.resume()
            io.readSource = source
        }
        armTimeouts()
    }

    /// With authentication on, closes the connection if it has not authenticated
    /// in time; with an idle timeout, closes it once the client has been silent
    /// that long. Unauthenticated sockets must not hold `maxConnections` slots.
    private func armTimeouts() {
        let configuration = context.configuration
        if configuration.requiresAuthentication && configuration.authTimeoutMilliseconds > 0 {
            let timeout = configuration.authTimeoutMilliseconds
            queue.asyncAfter(deadline: .now() + .milliseconds(timeout)) { [weak self] in
                self?.closeIfUnauthenticated(after: timeout)
            }
        }
        if configuration.idleTimeoutMilliseconds > 0 {
            checkIdle(timeout: UInt64(configuration.idleTimeoutMilliseconds) * 1_000_000)
        }
    }

    private func closeIfUnauthenticated(after timeout: Int) {
        guard !io.withLock({ $0.isClosing }), session.withLock({ $0.needsHello }) else { return }
        let error = WireError(
            code: .unauthenticated,
            message: "no successful hello within \(timeout) ms; the connection is closed")
        context.logger.debug("connection \(sessionID): \(error.message)")
        output.append(Reply.failure(id: nil, error))
        closeAfterFlush()
    }

    private func checkIdle(timeout: UInt64) {
        let (isClosing, lastReceivedAt) = io.withLock { ($0.isClosing, $0.lastReceivedAt) }
        guard !isClosing else { return }
        let silentFor = DispatchTime.now().uptimeNanoseconds - lastReceivedAt
        guard silentFor < timeout else {
            context.logger.debug("connection \(sessionID): closed after \(timeout / 1_000_000) ms without a request")
            closeAfterFlush()
            return
        }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(timeout - silentFor))) { [weak self] in
            self?.checkIdle(timeout: timeout)
        }
    }

    /// Queues the `shutdown` event and sends it; then, for half the grace time,
    /// keeps reading, so that requests still arriving are answered
    /// `shutting_down` (the session knows the server is stopping), before it
    /// closes once everything queued is out.
    func shutDown() {
        queue.async { [self] in
            output.append(Event.shutdown)
            flush()
            queue.asyncAfter(deadline: .now() + .milliseconds(closeGraceMilliseconds / 2)) { [self] in
                closeAfterFlush()
            }
        }
    }

    private func readAvailable() {
        let chunk = 65_536
        withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 16) { buffer in
            for _ in 0..<16 {
                guard !io.withLock({ $0.isClosing }) else { return }
                let received: StreamSocket.Received
                do {
                    received = try socket.receive(into: buffer)
                } catch {
                    context.logger.debug("connection \(sessionID): \(error)")
                    close()
                    return
                }
                switch received {
                case .wouldBlock:
                    return
                case .closed:
                    // The client may only have closed its sending side (`nc` does after its
                    // input ends): it still gets every reply queued so far.
                    closeAfterFlush()
                    return
                case .bytes(let count):
                    io.withLock { $0.lastReceivedAt = DispatchTime.now().uptimeNanoseconds }
                    // Copied into an array: a pointer to this stack buffer may not cross into the lock.
                    let bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    let action = session.withLock { $0.receive(bytes) }
                    guard carryOut(action) else { return }
                    flush()
                    if pauseReadingIfBacklogged() || pauseReadingIfOverInputBudget() { return }
                }
            }
        }
        flush()
    }

    /// Flushes on behalf of the `IOWorker` (on this connection's queue).
    func flushRequested() {
        flush()
    }

    /// Sends queued bytes until the queue is empty or the socket is full.
    private func flush() {
        guard !io.withLock({ $0.isClosed }) else { return }
        output.flushStarted()
        if output.withQueue({ $0.isFailed }) {
            beginClosing()
        }
        let acknowledgement = storageAcknowledgement()
        while true {
            let bytes = output.withQueue { $0.nextBytes(acknowledging: acknowledgement) }
            if bytes.isEmpty {
                if let revision = output.withQueue({ $0.waitingForRevision }) {
                    setWriteActive(false)
                    waitForStorage(revision)
                    return
                }
                break
            }
            let sent: Int
            do {
                sent = try bytes.withUnsafeBytes { try socket.send($0) }
            } catch {
                context.logger.debug("connection \(sessionID): \(error)")
                close()
                return
            }
            output.withQueue { $0.markSent(sent) }
            if sent < bytes.count {
                output.flushDeferredToSocket()
                setWriteActive(true)
                return
            }
        }
        setWriteActive(false)
        afterDrained()
    }

    /// How far storage lets replies to writes and events go now.
    private func storageAcknowledgement() -> OutboundQueue.Acknowledgement {
        guard let storage = context.store.storage else { return .everything }
        return OutboundQueue.Acknowledgement(revision: storage.acknowledgedRevision) { revision, id in
            guard storage.isLost(revision) else { return nil }
            var frame = Reply.failure(id: id, storage.lostChangeError()).encoded()
            frame.append(UInt8(ascii: "\n"))
            return frame
        }
    }

    /// Flushes again once storage acknowledges `revision` (or gives up on it).
    private func waitForStorage(_ revision: Int64) {
        guard let storage = context.store.storage else { return }
        let isNew = io.withLock { io in
            if let awaited = io.awaitedRevision, awaited <= revision { return false }
            io.awaitedRevision = revision
            return true
        }
        guard isNew else { return }
        storage.whenAcknowledged(revision) { [self] in
            io.withLock { $0.awaitedRevision = nil }
            worker.scheduleFlush(of: self)
        }
    }

    /// Acts on what the session asked for; returns whether to go on reading.
    private func carryOut(_ action: Session.Action) -> Bool {
        switch action {
        case .keepOpen:
            return true
        case .close:
            context.logger.debug("connection \(sessionID): closing after a fatal protocol error")
            closeAfterFlush()
        case .backlogged:
            context.logger.debug(
                "connection \(sessionID): not read until its \(output.withQueue { $0.queuedBytes }) queued bytes drain")
            io.withLock { $0.isBacklogged = true }
            flush()
            pauseReading()
        }
        return false
    }

    private func afterDrained() {
        if output.withQueue({ $0.isFailed }) {
            context.logger.debug("connection \(sessionID): closed as a slow consumer")
        }
        if io.withLock({ $0.isClosing }) {
            close()
            return
        }
        if io.withLock({ $0.isBacklogged }) {
            // Answer the frames that waited; asynchronously, so that a client reading as
            // fast as we write does not make this recurse through flush().
            queue.async { [self] in answerBufferedFrames() }
            return
        }
        resumeReadingIfPaused()
    }

    private func answerBufferedFrames() {
        guard !io.withLock({ $0.isClosed }) else { return }
        switch session.withLock({ $0.answerBufferedFrames() }) {
        case .keepOpen:
            io.withLock { $0.isBacklogged = false }
            resumeReadingIfPaused()
            flush()
        case let action:
            _ = carryOut(action)
        }
    }

    /// Stops reading while more than `maxQueuedBytes` wait to be sent (a client that
    /// pipelines requests but does not read its replies), so memory stays bounded.
    private func pauseReadingIfBacklogged() -> Bool {
        let backlog = output.withQueue { $0.queuedBytes }
        guard backlog > context.configuration.limits.maxQueuedBytes || output.withQueue({ $0.isFailed }) else {
            return false
        }
        pauseReading()
        return true
    }

    private func pauseReading() {
        io.withLock { io in
            guard !io.isReadPaused, let source = io.readSource else { return }
            source.suspend()
            io.isReadPaused = true
        }
    }

    /// Reports the bytes of unfinished frames held to the server's `InputBudget`;
    /// stops reading when it says so, until it resumes this connection.
    private func pauseReadingIfOverInputBudget() -> Bool {
        let held = session.withLock { $0.bufferedByteCount }
        let wasHolding = io.withLock { io in
            defer { io.isHoldingInput = held > 0 }
            return io.isHoldingInput
        }
        guard held > 0 || wasHolding else { return false }
        let mustPause = context.inputBudget.record(ObjectIdentifier(self), holding: held) { [weak self] in
            guard let self else { return }
            queue.async {
                self.io.withLock { $0.isOverInputBudget = false }
                self.resumeReadingIfPaused()
            }
        }
        guard mustPause else { return false }
        context.logger.debug("connection \(sessionID): not read while \(context.inputBudget.total) input bytes are held")
        io.withLock { $0.isOverInputBudget = true }
        pauseReading()
        watchForHangUpWhileOverInputBudget()
        return true
    }

    /// A connection that is not read would not notice its client closing, and
    /// would hold its bytes, and the budget, for good: look every 200 ms.
    private func watchForHangUpWhileOverInputBudget() {
        queue.asyncAfter(deadline: .now() + .milliseconds(200)) { [weak self] in
            guard let self, self.io.withLock({ $0.isOverInputBudget && !$0.isClosed }) else { return }
            if self.socket.hasPeerHungUp() {
                self.context.logger.debug("connection \(self.sessionID): the client left while it was not read")
                self.close()
            } else {
                self.watchForHangUpWhileOverInputBudget()
            }
        }
    }

    private func resumeReadingIfPaused() {
        io.withLock { io in
            guard io.isReadPaused, !io.isClosing, !io.isBacklogged, !io.isOverInputBudget,
                let source = io.readSource
            else { return }
            source.resume()
            io.isReadPaused = false
        }
    }

    private func setWriteActive(_ active: Bool) {
        io.withLock { io in
            guard io.isWriteActive != active, !io.isClosed else { return }
            if io.writeSource == nil {
                let source = DispatchSource.makeWriteSource(fileDescriptor: socket.descriptor, queue: queue)
                source.setEventHandler { [self] in flush() }
                source.setCancelHandler { [self] in sourceCancelled() }
                io.writeSource = source
            }
            if active {
                io.writeSource?.resume()
            } else {
                io.writeSource?.suspend()
            }
            io.isWriteActive = active
        }
    }

    /// Stops reading, sends what is queued, and closes; closes anyway once the client stops taking bytes.
    private func closeAfterFlush() {
        beginClosing()
        flush()
    }

    /// Stops reading and arms the deadline by which the connection closes even if
    /// the client does not take the bytes still queued. Idempotent.
    private func beginClosing() {
        let isFirst = io.withLock { io in
            guard !io.isClosing else { return false }
            io.isClosing = true
            if !io.isReadPaused, let source = io.readSource {
                source.suspend()
                io.isReadPaused = true
            }
            return true
        }
        guard isFirst else { return }
        armClosingDeadline(sentSoFar: output.withQueue { $0.sentByteCount })
    }

    /// How long a closing connection waits for its client to take more of what is
    /// queued: its last replies after it hung up its sending side, the error that
    /// ends it, or the events ahead of a `slow_consumer` error. A client that paused
    /// for a moment must not lose them; one that is gone costs only a socket and
    /// a few bytes meanwhile. A shutdown waits its grace time instead.
    static let closingPatienceMilliseconds = 30_000

    /// Closes once the patience passes without the client taking a byte; a client
    /// that keeps reading gets everything, one that stopped does not hold the
    /// connection open.
    private func armClosingDeadline(sentSoFar: Int) {
        let patience = context.isShuttingDown
            ? closeGraceMilliseconds : max(closeGraceMilliseconds, Self.closingPatienceMilliseconds)
        queue.asyncAfter(deadline: .now() + .milliseconds(patience)) { [self] in
            let (sent, isEmpty) = output.withQueue { ($0.sentByteCount, $0.isEmpty) }
            if sent != sentSoFar && !isEmpty && !io.withLock({ $0.isClosed }) {
                armClosingDeadline(sentSoFar: sent)
            } else {
                close()
            }
        }
    }

    /// Closes at once: ends the session's observations and cancels the sources; the
    /// descriptor is closed when the last source has been cancelled.
    func close() {
        let didClose = io.withLock { io in
            guard !io.isClosed else { return false }
            io.isClosed = true
            io.isClosing = true
            // A suspended source must be resumed before it can be cancelled. Cancel
            // handlers run later on the queue; the last one closes the descriptor.
            if let read = io.readSource {
                if io.isReadPaused { read.resume() }
                read.cancel()
            }
            if let write = io.writeSource {
                if !io.isWriteActive { write.resume() }
                write.cancel()
            }
            if io.readSource == nil && io.writeSource == nil { lingerAndClose() }
            return true
        }
        guard didClose else { return }
        session.withLock { $0.close() }
        // Nothing more can be sent: free the buffers now, not when the last timer
        // holding this connection has fired.
        output.withQueue { $0.discardAll() }
        context.inputBudget.remove(ObjectIdentifier(self))
        onClose(self)
    }

    private func sourceCancelled() {
        let closeNow = io.withLock { io in
            io.cancelledSources += 1
            let total = (io.readSource == nil ? 0 : 1) + (io.writeSource == nil ? 0 : 1)
            return io.cancelledSources == total
        }
        if closeNow { lingerAndClose() }
    }

    /// Closes the descriptor without resetting the connection.
    ///
    /// Closing a socket that still holds unread input makes the kernel answer
    /// with a reset, which destroys the bytes still on their way to the client:
    /// the shutdown event, a `slow_consumer` error, the last replies. So this
    /// ends our side first (the client reads end-of-file after the data), drops
    /// the client's input, and closes once the client hangs up or the grace time
    /// has passed.
    private func lingerAndClose() {
        socket.shutdownWrite()
        closeOnHangUp(before: .now() + .milliseconds(closeGraceMilliseconds))
    }

    private func closeOnHangUp(before deadline: DispatchTime) {
        if socket.discardInput() || DispatchTime.now() >= deadline {
            socket.close()
            return
        }
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) { [self] in
            closeOnHangUp(before: deadline)
        }
    }
}
