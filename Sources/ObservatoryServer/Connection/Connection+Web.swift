import ObservatoryHTTP

extension Connection {
    /// What a connection's client speaks.
    enum Dialect {
        /// The first line has not been seen whole yet.
        case undecided
        /// PROTOCOL.md's line protocol.
        case lineProtocol
        /// HTTP/1.1 (and what it upgrades to).
        case http
    }

    /// Hands received bytes to what the client speaks: the session for the line
    /// protocol, the web face's machine for HTTP, or the sniffer until it knows.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        switch dialect {
        case .lineProtocol:
            session.receive(bytes)
            return
        case .http:
            web?.receive(bytes)
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
            web = HTTPConnectionMachine(epoch: sessions.state.epoch, maxFrameBytes: sessions.limits.maxFrameBytes)
            web?.receive(first)
            count(as: .http)
        case .lineProtocol(let first):
            sniffer = nil
            dialect = .lineProtocol
            session.receive(first)
            count(as: .tcp)
        }
    }

    /// Answers what was received: the session's frames, after the web face's
    /// machine turned HTTP requests into frames.
    func answerReceived() -> Session.Action {
        guard dialect == .http else { return output.answerFrames(of: session) }
        let context = WebContext(isServing: !sessions.isShuttingDown, metrics: metricsPage)
        let step = web?.process(context) ?? HTTPConnectionMachine.Step()
        if web?.isWebSocket == true { count(as: .websocket) }
        if web?.isEventStream == true { count(as: .sse) }
        if !step.sessionBytes.isEmpty { session.receive(step.sessionBytes) }
        let action = output.answerFrames(of: session)
        if action == .close || web?.wantsToClose == true { return .close }
        return step.pausesReading ? .backlogged : action
    }

    /// The bytes to send next: the queue's for the line protocol; for HTTP, the
    /// web face's bytes made from the queue's frames (a stream's or a WebSocket's
    /// last bytes once a closing connection has sent everything else).
    func nextBytesToSend(_ acknowledgement: OutboundQueue.Acknowledgement) -> ArraySlice<UInt8> {
        guard dialect == .http else { return output.withQueue { $0.nextBytes(acknowledging: acknowledgement) } }
        if web?.pendingWire.isEmpty == true {
            let (queued, isEmpty) = output.withQueue { queue in
                let bytes = queue.nextBytes(acknowledging: acknowledgement)
                queue.markSent(bytes.count)
                return (bytes, queue.isEmpty)
            }
            web?.produce(from: queued)
            if web?.pendingWire.isEmpty == true, isEmpty, case .closing = machine.phase {
                web?.finish(shuttingDown: machine.isShuttingDown)
            }
        }
        return web?.pendingWire ?? []
    }

    /// Records that the socket took `count` bytes of `nextBytesToSend`.
    func markSent(_ count: Int) {
        if dialect == .http {
            web?.markSent(count)
        } else {
            output.withQueue { $0.markSent(count) }
        }
    }

    /// Schedules an event stream's keep-alive comment, once the connection is one.
    func keepStreamAlive() {
        guard dialect == .http, !isStreamKeptAlive, web?.isEventStream == true else { return }
        isStreamKeptAlive = true
        scheduleStreamComment()
    }

    private func scheduleStreamComment() {
        loop.schedule(at: EventLoop.now() + Self.streamKeepAliveNanoseconds) { [weak self] in
            guard let self, machine.phase == .open, web?.keepStreamAlive() == true else { return }
            flush()
            scheduleStreamComment()
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
