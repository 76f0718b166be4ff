import ObservatoryEpoll
import ObservatoryLogging
import ObservatorySockets
import ObservatoryWire

/// One client connection: the thin shell that carries out, on a non-blocking
/// socket, what its `Session` (the protocol) and its `ConnectionMachine` (the
/// rules of reading, sending and closing) decide.
///
/// The connection belongs to one `EventLoop`. When the socket is readable the
/// loop calls `handle(_:)`: the connection reads a bounded amount into the loop's
/// buffer, hands the bytes to the session, carries out its answers on the
/// `ConnectionOutput` one `ConnectionMachine.TurnShare` at a time (the loop
/// resumes it for the next), and asks to be flushed at the end of the turn, when the
/// loop writes everything queued in one send. Events from writers on other
/// threads are queued on the output, which asks the loop for a flush. Replies to
/// writes and events go out only as far as the shared state's revision gate
/// lets them; the connection waits on the gate for the rest.
///
/// ## Threads
/// Everything except `output` is confined to the loop's thread; other threads
/// reach the connection only through `loop.execute` and `loop.scheduleFlush`.
///
/// ## Stored properties
/// More than ten: the shell's collaborators (socket, loop, output, session, auth
/// timeout, input budget, revision gate, close callback), its loop-confined
/// bookkeeping (machine, token, interest, flush mark, awaited revision, held
/// input, armed deadline) and the web face's (sniffer, web face, dialect, stream
/// keep-alive, metrics). Only this class reads them; structs would add only names.
/// An idle connection's memory is mostly this object: what only some connections
/// need (the web face's machine, the logger and settings the environment has) is
/// not stored inline.
/// The variables are confined to the loop's thread and changed only by plain
/// assignments and the machines' pure mutating methods, never while a call that
/// reads them runs: their exclusivity is not checked at run time (callgrind: a
/// twentieth of a set's instructions went to those checks).
final class Connection: FlushingLoopHandler, @unchecked Sendable {
    /// The client's socket.
    let socket: StreamSocket
    /// The loop this connection's socket work runs on.
    let loop: EventLoop
    /// Replies and events on their way out.
    let output: ConnectionOutput
    /// The session id, for logs.
    let sessionID: String
    let session: Session
    /// How long a client may take to say `hello`, for the error that closes it (the rest of
    /// its settings went into its machine and output when they were made).
    private let authTimeoutMilliseconds: Int
    private let inputBudget: InputBudget
    /// The server's logger, read from the environment when something is logged.
    private var logger: Logger { sessions.logger }
    /// The shared state's revision gate: how far replies to writes and events go.
    let gate: RevisionGate
    private let onClose: @Sendable (Connection) -> Void
    @exclusivity(unchecked) private(set) var machine: ConnectionMachine
    @exclusivity(unchecked) private var token = -1
    @exclusivity(unchecked) private var registeredInterest: Poller.Interest = []
    /// Waiting in the loop's list of connections to flush at the end of the turn.
    @exclusivity(unchecked) private var isMarkedForFlush = false
    /// The revision the gate will call back for, so a connection waits on it once.
    @exclusivity(unchecked) var awaitedRevision: Int64?
    /// Whether the `InputBudget` counts this connection's bytes (else no report, no lock).
    @exclusivity(unchecked) private var isHoldingInput = false
    /// The most the next read may take, as the `InputBudget` last said.
    @exclusivity(unchecked) private var readLimit = Int.max
    /// The deadline a loop timer is set for, so that one is set per deadline.
    @exclusivity(unchecked) private var armedDeadline: UInt64?
    /// Holds the first bytes until they tell HTTP from the line protocol; `nil` once known.
    @exclusivity(unchecked) var sniffer: ProtocolSniffer? = ProtocolSniffer()
    /// The web face, when the client speaks HTTP: its machine in an allocation
    /// of its own, which a connection speaking the line protocol does not carry.
    @exclusivity(unchecked) var webFace: WebFace?
    /// What the client speaks: reads and sends check it, not two optionals (callgrind).
    @exclusivity(unchecked) var dialect = Dialect.undecided
    /// A stream's keep-alive comment is scheduled.
    @exclusivity(unchecked) var isStreamKeptAlive = false
    let sessions: SessionEnvironment
    /// Makes the `/metrics` page.
    let metricsPage: @Sendable () -> [UInt8]
    /// The transport this connection counts under in `/metrics`, once known.
    @exclusivity(unchecked) var countedTransport: ServerMetrics.Transport?

    /// How often an event stream gets a comment, so that proxies keep it open.
    static let streamKeepAliveNanoseconds: UInt64 = 15_000_000_000

    /// Reads of the loop's buffer per readiness report: enough for throughput, too few for one client to hold the loop.
    private static let readsPerTurn = 4
    /// How many chunks one flush sends before it yields to the other connections.
    static let sendsPerTurn = 8

    /// Creates the connection and its session; `start()` registers it with its loop.
    init(
        socket: StreamSocket, loop: EventLoop, sessions: SessionEnvironment, settings: ConnectionSettings,
        inputBudget: InputBudget, metricsPage: @escaping @Sendable () -> [UInt8] = { [] },
        onClose: @escaping @Sendable (Connection) -> Void
    ) {
        self.metricsPage = metricsPage
        self.socket = socket
        self.loop = loop
        authTimeoutMilliseconds = settings.authTimeoutMilliseconds
        self.inputBudget = inputBudget
        self.sessions = sessions
        self.onClose = onClose
        gate = sessions.state.gate
        output = ConnectionOutput(
            maxQueuedBytes: settings.maxQueuedBytes, maxObservations: settings.maxObservations, gate: gate)
        session = Session(
            environment: sessions, output: output, peer: SocketAddress.peerDescription(of: socket.descriptor))
        sessionID = session.identity.session
        machine = ConnectionMachine(timing: settings.timing, now: EventLoop.now())
        // No other thread reaches the output before the session observes something,
        // after `start()`: binding it here completes it.
        output.bind(to: self)
    }

    /// Registers with the loop and starts reading; on the loop's thread.
    func start() {
        do {
            registeredInterest = machine.interest
            token = try loop.register(socket.descriptor, interest: registeredInterest, handler: self)
        } catch {
            logger.error("connection \(sessionID): \(error)")
            carryOut(machine.failed("\(error)"))
            return
        }
        armTimer()
    }

    // MARK: Loop callbacks

    func handle(_ readiness: Poller.Readiness) {
        if readiness.writable && machine.isSocketFull {
            flush()
        }
        if machine.wantsToRead && readiness.readable {
            if machine.phase == .open {
                readAvailable()
            } else {
                discardInput()
            }
        } else if readiness.hungUp && machine.isOverInputBudget {
            carryOut(machine.hungUp())
        }
        updateInterest()
    }

    /// Answers the next share of the frames held; on the loop's thread.
    func resume() {
        carryOut(machine.resumed())
        updateInterest()
    }

    func loopStopped() {
        carryOut(machine.abandon())
    }

    /// Writes what is queued, as far as the socket and storage allow; on the loop's thread.
    func flush() {
        isMarkedForFlush = false
        guard machine.isSending else { return }
        let acknowledgement = storageAcknowledgement()
        var look = OutboundQueue.Look()
        let sending =
            dialect == .http ? sendWeb(acknowledgement, into: &look) : sendLines(acknowledgement, into: &look)
        guard let isSocketFull = sending else { return }
        let outcome = ConnectionMachine.SendOutcome(
            isDrained: look.isEmpty && (webFace?.machine.pendingWire.isEmpty ?? true), isSocketFull: isSocketFull,
            isSlowConsumer: look.isFailed, sentByteCount: look.sentByteCount)
        if !outcome.isDrained && !isSocketFull {
            if let revision = look.waitingForRevision {
                waitForStorage(revision)
            } else if !look.isWaitingForAnswer {
                // A slot waiting for its answer is flushed again when the answer comes in.
                markForFlush(answered: false)
            }
        }
        carryOut(machine.sent(outcome, at: EventLoop.now()))
        if webFace?.machine.closesWhenSent == true && machine.phase == .open {
            carryOut(machine.endOfInput(at: EventLoop.now()))
        }
        keepStreamAlive()
        updateInterest()
    }

    /// Closes after the socket failed to take bytes.
    func sendFailed(_ error: any Error) {
        carryOut(machine.failed("\(error)"))
    }

    /// Queues the `shutdown` event and sends it; requests still arriving are
    /// answered `shutting_down` for half the grace time, then the connection
    /// closes once everything queued is out. On the loop's thread.
    func shutDown() {
        guard machine.phase == .open else { return }
        output.append(RawEvent.shutdown)
        session.queuedBytesBound = .max
        carryOut(machine.shutDown(at: EventLoop.now()))
    }

    /// If this connection observes anything, sends it `unavailable` with `revision`
    /// (every event up to it was sent) and closes once that is out; on the loop's thread.
    func closeObserving(becauseReloadedAt revision: Int64) {
        let observations = output.observations
        guard machine.phase == .open, !observations.keys.isEmpty || !observations.prefixes.isEmpty else { return }
        let error: JSONValue = [
            "code": "unavailable", "revision": .integer(revision),
            "message": "this node lost continuity with etcd and reloaded the state; resume from the last revision seen",
        ]
        output.withQueue {
            $0.appendFrame(JSONValue.object(["ok": false, "id": .null, "error": error]).encoded() + [10])
        }
        carryOut(machine.answered(.close, at: EventLoop.now()))
    }

    /// Closes at once; on the loop's thread.
    func close() {
        carryOut(machine.abandon())
    }

    // MARK: Reading

    private func readAvailable() {
        // Others may have filled the budget since this connection's last read: ask
        // before the next read takes a buffer for a whole frame.
        if isHoldingInput { reportHeldInput() }
        for _ in 0..<Self.readsPerTurn where machine.phase == .open && machine.wantsToRead {
            let buffer = UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer.prefix(readLimit))
            let received: StreamSocket.Received
            do {
                received = try socket.receive(into: buffer)
            } catch {
                carryOut(machine.failed("\(error)"))
                return
            }
            switch received {
            case .wouldBlock:
                return
            case .closed:
                if case .lineProtocol(let first)? = sniffer?.inputEnded() {
                    sniffer = nil
                    dialect = .lineProtocol
                    session.receive(first)
                }
                webFace?.machine.inputEnded()
                carryOut(machine.endOfInput(at: EventLoop.now()))
                return
            case .bytes(let count):
                receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                answer()
                // Out of the loop's buffer before it is read into again (`Session.receiveInPlace`).
                session.keepUnansweredInput()
                reportHeldInput()
                // A read that did not fill the buffer took all the kernel had; another would
                // only say "would block". Epoll is level-triggered: later bytes come next turn.
                if count < buffer.count { return }
            }
        }
    }

    /// Drops what a lingering connection's client still sends, and closes once it hangs up.
    private func discardInput() {
        carryOut(machine.discardedInput(peerClosed: socket.discardInput()))
    }

    /// Reports the bytes of unfinished frames held to the server's `InputBudget`,
    /// which may stop this connection's reading until it resumes it.
    private func reportHeldInput() {
        var held = session.unfinishedInputByteCount
        if dialect != .lineProtocol {
            held += (sniffer?.bufferedByteCount ?? 0) + (webFace?.machine.retainedByteCount ?? 0)
        }
        guard held > 0 || isHoldingInput else { return }
        isHoldingInput = held > 0
        let reading = inputBudget.record(ObjectIdentifier(self), holding: held) { [output] in
            guard let connection = output.boundConnection else { return }
            connection.loop.execute {
                connection.machine.inputBudget(pauses: false)
                connection.updateInterest()
            }
        }
        readLimit = if case .atMost(let count) = reading { count } else { Int.max }
        guard reading == .paused else { return }
        logger.debug(
            "connection \(sessionID): not read while \(inputBudget.total) input bytes are held")
        machine.inputBudget(pauses: true)
    }

    // MARK: Carrying out

    /// Answers one share of the frames held, and carries out what the machine makes of it.
    private func answer() {
        // One clock read: the share counts from it, and the machine takes it as the request's time.
        let now = EventLoop.now()
        let (action, usedShare) = answerReceived(startedAt: now)
        carryOut(machine.answered(action, usedShare: usedShare, at: now))
    }

    func carryOut(_ action: ConnectionMachine.Action) {
        if let reason = action.reason {
            logger.debug("connection \(sessionID): \(reason)")
        }
        switch action {
        case .none:
            break
        case .send:
            markForFlush(answered: true)
        case .rejectUnauthenticated:
            let timeout = authTimeoutMilliseconds
            output.append(
                Reply.failure(
                    id: nil,
                    WireError(
                        code: .unauthenticated,
                        message: "no successful hello within \(timeout) ms; the connection is closed")))
            session.queuedBytesBound = .max
            markForFlush(answered: true)
        case .answerBuffered:
            answer()
            // Once every frame held is answered, its input no longer counts against the budget.
            if isHoldingInput && !machine.isYielding { reportHeldInput() }
        case .sendAndResume:
            markForFlush(answered: false)
            loop.resume(self)
        case .finish:
            finishSession(lingering: true)
        case .finishAndClose:
            finishSession(lingering: false)
            closeDescriptor()
        case .close:
            closeDescriptor()
        }
        armTimer()
    }

    private func markForFlush(answered: Bool) {
        guard !isMarkedForFlush else { return }
        isMarkedForFlush = true
        loop.markForFlush(self, answered: answered)
    }

    /// Ends the session's observations and frees its buffers; the socket's sending
    /// side is shut, so the client reads end-of-file after the last bytes.
    private func finishSession(lingering: Bool) {
        session.close()
        let (events, isSlowConsumer) = output.withQueue { ($0.eventCount, $0.isFailed) }
        countClosed(events: events, slowConsumer: isSlowConsumer)
        output.withQueue { $0.discardAll() }
        inputBudget.remove(ObjectIdentifier(self))
        if lingering { socket.shutdownWrite() }
        onClose(self)
    }

    private func closeDescriptor() {
        if token >= 0 {
            loop.unregister(socket.descriptor, token: token)
            token = -1
        }
        socket.close()
        // The last step of every connection's life: the output lets go of it.
        output.unbind()
    }

    private func updateInterest() {
        let interest = machine.interest
        guard token >= 0, interest != registeredInterest else { return }
        registeredInterest = interest
        loop.modify(socket.descriptor, token: token, interest: interest)
    }

    private func sendOutcome(isSocketFull: Bool) -> ConnectionMachine.SendOutcome {
        output.withQueue { queue in
            ConnectionMachine.SendOutcome(
                isDrained: queue.isEmpty && (webFace?.machine.pendingWire.isEmpty ?? true), isSocketFull: isSocketFull,
                isSlowConsumer: queue.isFailed,
                sentByteCount: queue.sentByteCount)
        }
    }

    /// Sets a loop timer for the machine's next deadline, unless one is set for it or earlier.
    private func armTimer() {
        guard let deadline = machine.nextDeadline else { return }
        if let armed = armedDeadline, armed <= deadline { return }
        armedDeadline = deadline
        loop.schedule(at: deadline) { [output] in output.boundConnection?.timerFired() }
    }

    private func timerFired() {
        let now = EventLoop.now()
        if let armed = armedDeadline, armed <= now { armedDeadline = nil }
        carryOut(
            machine.timerFired(
                at: now, needsHello: session.needsHello, outcome: sendOutcome(isSocketFull: machine.isSocketFull)))
        updateInterest()
    }
}
