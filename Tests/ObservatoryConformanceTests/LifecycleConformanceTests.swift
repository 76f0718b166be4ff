import Foundation
import Testing

/// docs/protocol.md, "Shutdown", "Slow consumers", and many clients at once.
@Suite struct LifecycleConformanceTests {
    @Test func stopSendsShutdownEventToObserversAndIdleConnectionsThenCloses() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let idle = try server.connect()
            #expect(try idle.call(["op": "ping"]).ok == true)
            server.server.stop()
            for (name, client) in [("observer", observer), ("idle", idle)] {
                let frames = try client.framesUntilClosed()
                let shutdown = frames.first(where: { $0.event == "shutdown" })
                #expect(shutdown != nil, "\(name) got no shutdown event: \(frames)")
                #expect(
                    shutdown?.object.count == 1,
                    "shutdown is exactly {\"event\":\"shutdown\"}: \(String(describing: shutdown))")
            }
        }
    }

    @Test func requestsArrivingDuringShutdownAreAnsweredShuttingDown() throws {
        try withServer({ $0.shutdownGraceMilliseconds = 3_000 }) { server in
            // A client that has not taken its events yet keeps the server in its
            // shutdown grace period, so its next request arrives during shutdown.
            let client = try server.connect(receiveBufferBytes: 2_048)
            _ = try client.call(["op": "observe", "prefix": "backlog."])
            let writer = try server.connect()
            let chunk = String(repeating: "b", count: 8_000)
            try writer.send(
                raw: (0..<40).map { "{\"op\":\"set\",\"key\":\"backlog.\($0)\",\"value\":\"\(chunk)\"}\n" }.joined())
            _ = try writer.call(["op": "ping"])
            let stopper = DispatchQueue(label: "conformance.stopper")
            let stopping = server.server
            stopper.async { stopping.stop() }
            #expect(waitUntilRefusingConnections(port: server.port), "the server kept accepting during stop()")
            try client.send(raw: "{\"op\":\"set\",\"key\":\"late\",\"value\":1,\"id\":\"late\"}\n")
            let frames = try client.framesUntilClosed(timeout: .seconds(10))
            let ending = client.wasReset ? "a reset" : "an orderly close"
            let shutdownEvents = frames.filter { $0.event == "shutdown" }
            #expect(shutdownEvents.count == 1, "no shutdown event; \(frames.count) frames, then \(ending)")
            let lateReplies = frames.filter { $0.string("id") == "late" }
            #expect(lateReplies.map(\.errorCode) == ["shutting_down"], "a request during shutdown got \(lateReplies)")
            stopper.sync {}
        }
    }

    /// Connects until the server refuses (its listener is closed), at most 3 s.
    private func waitUntilRefusingConnections(port: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline {
            guard (try? WireClient(port: port)) != nil else { return true }
            usleep(5_000)
        }
        return false
    }

    /// With `sendsKeepAlivePings`, the slow client also sends a ping per batch that
    /// the server may leave unread: closing must not reset away the error.
    @Test(arguments: [false, true])
    func aConsumerThatStopsReadingGetsSlowConsumerAndIsClosedWhileOthersKeepGoing(sendsKeepAlivePings: Bool) throws {
        try withServer({
            $0.limits.maxQueuedBytes = 65_536
            // Time for the slow client to take its last bytes once it reads again.
            $0.shutdownGraceMilliseconds = 5_000
        }) { server in
            let slow = try server.connect(receiveBufferBytes: 2_048)
            _ = try slow.call(["op": "observe", "prefix": "flood."])
            let prompt = try server.connect()
            _ = try prompt.call(["op": "observe", "prefix": "flood."])
            let writer = try server.connect()
            // A batch (about 40 KB of events) fits a reader's queue; enough batches
            // for twice the kernel's send buffer ceiling outgrow every buffer plus
            // the queue of a client that does not read.
            let chunk = String(repeating: "z", count: 4_000)
            let batches = 2 * (WireClient.kernelSendBufferCeiling() + 65_536) / 40_000
            for batch in 0..<batches {
                // Distinct keys, so coalescing per key cannot absorb the backlog.
                let lines = (0..<10).map {
                    "{\"op\":\"set\",\"key\":\"flood.\(batch).\($0)\",\"value\":\"\(chunk)\"}\n"
                }
                try writer.send(raw: lines.joined())
                let marker = try writer.call(["op": "set", "key": "flood.marker", "value": batch])
                #expect(marker.ok == true)
                // The reading observer gets all eleven events of the batch within seconds.
                var keys: [String] = []
                while keys.last != "flood.marker", keys.count < 11 {
                    keys.append(try prompt.nextEvent().string("key") ?? "?")
                }
                let expectedKeys = (0..<10).map { "flood.\(batch).\($0)" } + ["flood.marker"]
                #expect(keys == expectedKeys)
                if sendsKeepAlivePings {
                    try? slow.send(raw: "{\"op\":\"ping\",\"id\":\"keepalive-\(batch)\"}\n", timeout: .milliseconds(50))
                }
            }
            // The slow client reads again: what is still on its way ends with the error.
            let frames = try slow.framesUntilClosed(timeout: .seconds(10))
            let ending = slow.wasReset ? "a reset" : "an orderly close"
            let last = try #require(frames.last, "the slow consumer got no frame at all before \(ending)")
            #expect(
                last.errorCode == "slow_consumer",
                "last of \(frames.count) frames before \(ending): \(last.text.prefix(120))")
            #expect(last.id == .null, "\(last.text.prefix(120))")
            #expect(last.ok == false)
            #expect(
                frames.filter(\.isEvent).count < batches * 11, "the slow consumer got every event and was closed anyway"
            )
        }
    }

    @Test func aSlowConsumerOfOneKeyGetsCoalescedEventsAndStaysConnected() throws {
        try withServer({ $0.limits.maxQueuedBytes = 16_384 }) { server in
            let slow = try server.connect(receiveBufferBytes: 2_048)
            _ = try slow.call(["op": "observe", "key": "hot"])
            let writer = try server.connect()
            // One event (old + new) fits the queue; a thousand of them do not.
            let chunk = String(repeating: "h", count: 4_000)
            let writes = 1_000
            var lastVersion: Int64 = 0
            for batch in 0..<(writes / 10) {
                let lines = (0..<10).map {
                    "{\"op\":\"set\",\"key\":\"hot\",\"value\":\"\(batch * 10 + $0) \(chunk)\"}\n"
                }
                try writer.send(raw: lines.joined())
                lastVersion = try writer.call(["op": "get", "key": "hot"]).integer("version") ?? 0
            }
            // Well over maxQueuedBytes were written for one key: without coalescing
            // the slow observer would have to be closed.
            var previousNew: JSONTree?
            var previousVersion: Int64 = 0
            var events = 0
            while previousVersion < lastVersion, events <= writes {
                let event: Frame
                do {
                    event = try slow.nextEvent()
                } catch {
                    let last = try slow.frames(arrivingWithin: .seconds(1)).last
                    Issue.record("\(error) after \(events) events; last frame: \(last?.text.prefix(200) ?? "none")")
                    return
                }
                events += 1
                let version = event.integer("version") ?? 0
                #expect(version > previousVersion, "versions must grow: \(version) after \(previousVersion)")
                if let previousNew {
                    #expect(event["old"] == previousNew, "a coalesced event carries the first old")
                }
                previousNew = event["new"]
                previousVersion = version
            }
            #expect(previousVersion == lastVersion)
            #expect(previousNew?.string?.hasPrefix("\(writes - 1) ") == true, "the last event carries the latest new")
            #expect(events < writes, "expected coalescing, got one event per change")
            #expect(try slow.call(["op": "ping"]).ok == true, "coalescing must keep the consumer connected")
        }
    }

    @Test func twoHundredConcurrentClientsSetAndGetTheirOwnKeys() throws {
        try withServer { server in
            let clientCount = 200
            let requestsPerClient = 20
            let clients = try (0..<clientCount).map { _ in try server.connect() }
            for (index, client) in clients.enumerated() {
                var lines = ""
                for step in 0..<requestsPerClient {
                    lines +=
                        "{\"op\":\"set\",\"key\":\"c\(index).k\(step % 5)\",\"value\":[\(index),\(step)],\"id\":\(step * 2)}\n"
                    lines += "{\"op\":\"get\",\"key\":\"c\(index).k\(step % 5)\",\"id\":\(step * 2 + 1)}\n"
                }
                try client.send(raw: lines)
            }
            var failures: [String] = []
            for (index, client) in clients.enumerated() {
                for step in 0..<requestsPerClient {
                    let set = try client.nextFrame()
                    let get = try client.nextFrame()
                    let expected = JSONTree.array([.integer(Int64(index)), .integer(Int64(step))])
                    if set.ok != true || set.id != .integer(Int64(step * 2)) || get["value"] != expected
                        || get.id != .integer(Int64(step * 2 + 1))
                    {
                        failures.append("client \(index) step \(step): \(set) / \(get)")
                    }
                }
            }
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            let list = try server.connect().call(["op": "list"])
            #expect(list["keys"]?.array?.count == clientCount * 5)
        }
    }

    @Test func twoHundredClientsOnThreadsAllSeeEveryRequestAnswered() throws {
        try withServer { server in
            let port = server.port
            let failures = FailureLog()
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                do {
                    let clients = try (0..<25).map { _ in try WireClient(port: port) }
                    for round in 0..<10 {
                        for (index, client) in clients.enumerated() {
                            try client.send(["op": "set", "key": "t\(worker).\(index)", "value": round, "id": round])
                        }
                        for client in clients {
                            // Answers, not speed, are the point: under the thread
                            // sanitizer a round of 200 takes seconds.
                            let reply = try client.reply(to: round, timeout: .seconds(60))
                            if reply.ok != true { failures.append("\(reply)") }
                        }
                    }
                } catch {
                    failures.append("worker \(worker): \(error)")
                }
            }
            #expect(failures.entries.isEmpty, "\(failures.entries.prefix(5))")
            let list = try server.connect().call(["op": "list", "prefix": "t"])
            #expect(list["keys"]?.array?.count == 200)
        }
    }
}
