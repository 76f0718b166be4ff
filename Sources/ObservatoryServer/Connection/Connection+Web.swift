import ObservatoryHTTP

extension Connection {
    /// What a connection's client speaks.
    enum Dialect {
        /// The first line has not been seen whole yet.
        case undecided
        /// docs/protocol.md's line protocol.
        case lineProtocol
        /// HTTP/1.1 (and what it upgrades to).
        case http
    }

    /// Hands received bytes to what the client speaks: the session for the line
    /// protocol, the web face's machine for HTTP, or the sniffer until it knows.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        switch dialect {
        case .lineProtocol:
            // Answered in place: `readAvailable()` keeps what is left before the next read.
            session.receiveInPlace(bytes)
            return
        case .http:
            webFace?.machine.receive(bytes)
            return
        case .undecided:
            break
        }
        switch sniffer?.append(bytes) ?? .undecided {
        case .undecided:
            break
        case .http(let first):
            sniffer = nil
            dialect = .http
            webFace = WebFace(
                HTTPConnectionMachine(epoch: sessions.state.epoch, maxFrameBytes: sessions.limits.maxFrameBytes))
            webFace?.machine.receive(first)
            count(as: .http)
        case .lineProtocol(let first):
            sniffer = nil
            dialect = .lineProtocol
            session.receive(first)
            count(as: .tcp)
        }
    }

    /// Answers what was received, one share of a turn at most: the session's
    /// frames, after the web face's machine turned HTTP requests into frames.
    func answerReceived(startedAt start: UInt64) -> (action: Session.Action, usedShare: Bool) {
        guard dialect == .http else { return output.answerFrames(of: session, within: machine.share, startedAt: start) }
        let context = WebContext(isServing: !sessions.isShuttingDown, metrics: metricsPage)
        let step = webFace?.machine.process(context) ?? HTTPConnectionMachine.Step()
        if webFace?.machine.isWebSocket == true { count(as: .websocket) }
        if webFace?.machine.isEventStream == true { count(as: .sse) }
        for code in step.errorCodes { sessions.metrics.countError(code) }
        if !step.sessionBytes.isEmpty { session.receive(step.sessionBytes) }
        let (action, usedShare) = output.answerFrames(of: session, within: machine.share, startedAt: start)
        if action == .close || webFace?.machine.wantsToClose == true { return (.close, false) }
        return step.pausesReading ? (.backlogged, false) : (action, usedShare)
    }

    /// The bytes to send next: the queue's for the line protocol; for HTTP, the
    /// web face's bytes made from the queue's frames (a stream's or a WebSocket's
    /// last bytes once a closing connection has sent everything else); for a
    /// WebSocket that only wraps lines, the queue's own text messages.
    func nextBytesToSend(_ acknowledgement: OutboundQueue.Acknowledgement) -> ArraySlice<UInt8> {
        guard dialect == .http else { return output.withQueue { $0.nextBytes(acknowledging: acknowledgement) } }
        if webFace?.machine.takesQueueFramed == true { return nextFramedBytes(acknowledgement) }
        if webFace?.machine.pendingWire.isEmpty == true {
            // Switched where the whole write buffer is taken, so no line is left behind in it.
            let switches = webFace?.machine.canTakeQueueFramed == true
            let (queued, isEmpty) = output.withQueue { queue in
                let bytes = queue.nextBytes(acknowledging: acknowledgement)
                queue.markSent(bytes.count)
                if switches { queue.framing = .webSocketText }
                return (bytes, queue.isEmpty)
            }
            webFace?.machine.produce(from: queued)
            if switches { webFace?.machine.takeQueueFramed() }
            finishIfDrained(queueIsEmpty: isEmpty)
        }
        return webFace?.machine.pendingWire ?? []
    }

    /// The next bytes of a WebSocket whose queue writes text messages: the queue's,
    /// or the machine's frames between two messages.
    private func nextFramedBytes(_ acknowledgement: OutboundQueue.Acknowledgement) -> ArraySlice<UInt8> {
        guard let source = webFace?.machine.nextSource else { return [] }
        switch source {
        case .queue:
            let bytes = output.withQueue { $0.nextBytes(acknowledging: acknowledgement) }
            webFace?.machine.handOut(.queue, count: bytes.count)
            guard bytes.isEmpty else { return bytes }
        case .droppedQueue:
            output.withQueue { queue in
                // Bounded: each round drops a chunk; what is left waits for the next flush.
                for _ in 0..<64 {
                    let bytes = queue.nextBytes(acknowledging: acknowledgement)
                    guard !bytes.isEmpty else { break }
                    queue.markSent(bytes.count)
                }
            }
        case .wire:
            break
        }
        finishIfDrained(queueIsEmpty: output.withQueue { $0.isEmpty })
        let wire = webFace?.machine.pendingWire ?? []
        webFace?.machine.handOut(.wire, count: wire.count)
        return wire
    }

    /// Once a closing connection has sent everything, the web face's last bytes.
    private func finishIfDrained(queueIsEmpty: Bool) {
        if webFace?.machine.pendingWire.isEmpty == true, queueIsEmpty, case .closing = machine.phase {
            webFace?.machine.finish(shuttingDown: machine.isShuttingDown)
        }
    }

    /// Records that the socket took `count` bytes of `nextBytesToSend`.
    func markSent(_ count: Int) {
        if dialect == .http, webFace?.machine.markSent(count) == false { return }
        output.withQueue { $0.markSent(count) }
    }

    /// Schedules an event stream's keep-alive comment, once the connection is one.
    func keepStreamAlive() {
        guard dialect == .http, !isStreamKeptAlive, webFace?.machine.isEventStream == true else { return }
        isStreamKeptAlive = true
        scheduleStreamComment()
    }

    private func scheduleStreamComment() {
        loop.schedule(at: EventLoop.now() + Self.streamKeepAliveNanoseconds) { [output] in
            guard let connection = output.boundConnection, connection.machine.phase == .open,
                connection.webFace?.machine.keepStreamAlive() == true
            else { return }
            connection.flush()
            connection.scheduleStreamComment()
        }
    }
}

extension Connection {
    /// Counts this connection under `transport` in `/metrics`, instead of the one before.
    func count(as transport: ServerMetrics.Transport) {
        guard transport != countedTransport else { return }
        if let counted = countedTransport { sessions.metrics.connections[counted]?.add(-1) }
        sessions.metrics.connections[transport]?.add(1)
        countedTransport = transport
    }

    /// A closing connection leaves the gauges; its events join the closed ones' total.
    func countClosed(events: Int, slowConsumer: Bool) {
        let metrics = sessions.metrics
        if let counted = countedTransport { metrics.connections[counted]?.add(-1) }
        countedTransport = nil
        metrics.eventsOfClosedConnections.add(events)
        if slowConsumer { metrics.slowConsumerCloses.add() }
    }
}
