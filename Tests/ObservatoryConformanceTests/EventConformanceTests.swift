import Foundation
import Testing

/// docs/protocol.md, "Events" and `observe`/`unobserve`: event shapes, authors and
/// sessions, ordering, no duplicates, no gaps between snapshot and events.
@Suite struct EventConformanceTests {
    @Test func creatingAKeySendsAnUpdateWithoutOld() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "sky.color"])
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "alice"])
            let set = try writer.call(["op": "set", "key": "sky.color", "value": "blue"])
            let event = try observer.nextEvent()
            #expect(event.event == "update", "\(event)")
            #expect(event.string("key") == "sky.color")
            #expect(event["new"] == .string("blue"))
            #expect(event["old"] == nil, "a create has no old: \(event)")
            #expect(event["version"] == set["version"])
            #expect(event.string("author") == "alice")
            #expect(event["session"] == hello["session"])
            #expect(event["ok"] == nil, "an event never has ok: \(event)")
        }
    }

    @Test func changingAKeySendsAnUpdateWithOldAndNew() throws {
        try withServer { server in
            let writer = try server.connect(name: "bob")
            _ = try writer.call(["op": "set", "key": "sky.color", "value": "blue"])
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "sky.color"])
            let set = try writer.call(["op": "set", "key": "sky.color", "value": "red"])
            let event = try observer.nextEvent()
            #expect(event.event == "update")
            #expect(event["old"] == .string("blue"), "\(event)")
            #expect(event["new"] == .string("red"), "\(event)")
            #expect(event["version"] == set["version"])
            #expect(event.string("author") == "bob")
        }
    }

    @Test func deletingAKeySendsADeleteEventWithOld() throws {
        try withServer { server in
            let writer = try server.connect(name: "carol")
            _ = try writer.call(["op": "set", "key": "sky.color", "value": "red"])
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "sky."])
            let delete = try writer.call(["op": "delete", "key": "sky.color"])
            let event = try observer.nextEvent()
            #expect(event.event == "delete", "\(event)")
            #expect(event.string("key") == "sky.color")
            #expect(event["old"] == .string("red"), "a delete event always has old: \(event)")
            #expect(event["version"] == delete["version"])
            #expect(event.string("author") == "carol")
            #expect(event.string("session") != nil)
            #expect(event["ok"] == nil)
        }
    }

    @Test func recreatingADeletedKeySendsAnUpdateWithoutOld() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "phoenix"])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "phoenix", "value": "first"])
            _ = try writer.call(["op": "delete", "key": "phoenix"])
            let again = try writer.call(["op": "set", "key": "phoenix", "value": "second"])
            let events = try observer.events { $0["new"] == .string("second") }
            let eventKindsInOrder = events.map { $0.event ?? "?" } == ["update", "delete", "update"]
            #expect(eventKindsInOrder, "\(events)")
            #expect(events.last?["old"] == nil, "a re-created key has no old: \(String(describing: events.last))")
            #expect(events.last?["version"] == again["version"])
        }
    }

    @Test func everyObserverOfAKeyReceivesEveryChange() throws {
        try withServer { server in
            let observers = try (0..<50).map { _ in try server.connect() }
            for observer in observers {
                _ = try observer.call(["op": "observe", "prefix": "fan."])
            }
            let writer = try server.connect()
            let changes = 40
            try writer.send(
                raw: (0..<changes).map { "{\"op\":\"set\",\"key\":\"fan.\($0 % 4)\",\"value\":\($0)}\n" }.joined())
            for (index, observer) in observers.enumerated() {
                var values: [Int64] = []
                for _ in 0..<changes {
                    values.append(try observer.nextEvent().integer("new") ?? -1)
                }
                let receivedEveryValue = values.sorted() == (0..<Int64(changes)).map { $0 }
                #expect(receivedEveryValue, "observer \(index): \(values)")
            }
        }
    }

    @Test func theWritersOwnConnectionReceivesItsOwnEventsAndTellsThemApartBySession() throws {
        try withServer { server in
            let me = try server.connect()
            let myHello = try me.call(["op": "hello", "name": "same-name"])
            _ = try me.call(["op": "observe", "key": "shared"])
            let other = try server.connect()
            let otherHello = try other.call(["op": "hello", "name": "same-name"])
            _ = try me.call(["op": "set", "key": "shared", "value": "mine"])
            let own = try me.nextEvent()
            #expect(own["new"] == .string("mine"), "\(own)")
            #expect(own["session"] == myHello["session"], "\(own)")
            _ = try other.call(["op": "set", "key": "shared", "value": "theirs"])
            let theirs = try me.nextEvent()
            #expect(theirs["new"] == .string("theirs"), "\(theirs)")
            #expect(theirs["session"] == otherHello["session"], "\(theirs)")
            #expect(theirs["session"] != own["session"])
        }
    }

    @Test func withoutHelloTheAuthorIsAnonymous() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "k", "value": 1])
            #expect(try observer.nextEvent().string("author") == "anonymous")
            #expect(try writer.call(["op": "get", "key": "k"]).string("author") == "anonymous")
        }
    }

    @Test func authorAndSessionFieldsInARequestCannotSpoofTheWriter() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "honest"])
            let set = try writer.call(fields: #""op":"set","key":"k","value":1,"author":"mallory","session":"s-fake""#)
            #expect(set.ok == true, "\(set)")
            let event = try observer.nextEvent()
            #expect(event.string("author") == "honest", "\(event)")
            #expect(event["session"] == hello["session"], "\(event)")
            let delete = try writer.call(fields: #""op":"delete","key":"k","author":"mallory","session":"s-fake""#)
            #expect(delete.ok == true)
            let deleted = try observer.nextEvent()
            #expect(deleted.string("author") == "honest", "\(deleted)")
            #expect(deleted["session"] == hello["session"], "\(deleted)")
        }
    }

    @Test func eventsForOneKeyArriveInVersionOrder() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "counter"])
            let writer = try server.connect()
            let count = 200
            try writer.send(raw: (1...count).map { "{\"op\":\"set\",\"key\":\"counter\",\"value\":\($0)}\n" }.joined())
            var versions: [Int64] = []
            var values: [Int64] = []
            for _ in 0..<count {
                let event = try observer.nextEvent()
                versions.append(event.integer("version") ?? -1)
                values.append(event.integer("new") ?? -1)
            }
            #expect(values == (1...count).map(Int64.init))
            #expect(server.revisions.areSuccessive(versions), "\(versions)")
        }
    }

    @Test func eventsForOneKeyWrittenByConcurrentWritersArriveInVersionOrderWithoutGaps() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "contested"])
            let port = server.port
            let writers = 4
            let writesEach = 100
            let failures = FailureLog()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                do {
                    let client = try WireClient(port: port)
                    let lines = (0..<writesEach).map {
                        "{\"op\":\"set\",\"key\":\"contested\",\"value\":\"w\(writer)-\($0)\",\"id\":\($0)}\n"
                    }
                    try client.send(raw: lines.joined())
                    _ = try client.reply(to: writesEach - 1)
                } catch {
                    failures.append("writer \(writer): \(error)")
                }
            }
            #expect(failures.entries.isEmpty, "\(failures.entries)")
            var previous: Frame?
            for _ in 0..<(writers * writesEach) {
                let event = try observer.nextEvent()
                if let previous {
                    #expect(
                        server.revisions.isNext(event.integer("version"), after: previous.integer("version") ?? 0),
                        "\(previous) then \(event)")
                    #expect(event["old"] == previous["new"], "\(previous) then \(event)")
                }
                previous = event
            }
        }
    }

    @Test func observingTheSameKeyOrPrefixTwiceDoesNotDuplicateEvents() throws {
        try withServer { server in
            let observer = try server.connect()
            let first = try observer.call(["op": "observe", "key": "twice"])
            let second = try observer.call(["op": "observe", "key": "twice"])
            #expect(first.ok == true && second.ok == true, "observing twice is not an error: \(second)")
            _ = try observer.call(["op": "observe", "prefix": "dup."])
            _ = try observer.call(["op": "observe", "prefix": "dup."])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "twice", "value": 1])
            _ = try writer.call(["op": "set", "key": "dup.x", "value": 1])
            _ = try observer.call(["op": "observe", "key": "end"])
            _ = try writer.call(["op": "set", "key": "end", "value": 1])
            let events = try observer.events { $0.string("key") == "end" }
            let keys = events.compactMap { $0.string("key") }
            #expect(keys == ["twice", "dup.x", "end"], "\(events)")
        }
    }

    @Test func prefixObservationSeesCreatesChangesAndDeletesUnderThePrefixOnly() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "kitchen."])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "kitchen.light", "value": true])
            _ = try writer.call(["op": "set", "key": "kitchenette", "value": true])
            _ = try writer.call(["op": "set", "key": "garden.light", "value": true])
            _ = try writer.call(["op": "set", "key": "kitchen.light", "value": false])
            _ = try writer.call(["op": "set", "key": "kitchen.oven.temp", "value": 180])
            _ = try writer.call(["op": "delete", "key": "kitchen.light"])
            let events = try observer.events { $0.event == "delete" }
            let summary = events.map { "\($0.event ?? "?") \($0.string("key") ?? "?")" }
            #expect(
                summary == [
                    "update kitchen.light", "update kitchen.light", "update kitchen.oven.temp", "delete kitchen.light",
                ])
        }
    }

    @Test func emptyPrefixObservesEveryKey() throws {
        try withServer { server in
            let observer = try server.connect()
            let reply = try observer.call(["op": "observe", "prefix": ""])
            #expect(reply.ok == true, "\(reply)")
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "x", "value": 1])
            _ = try writer.call(["op": "set", "key": "y.z", "value": 1])
            let keys = try observer.events { $0.string("key") == "y.z" }.compactMap { $0.string("key") }
            #expect(keys == ["x", "y.z"])
        }
    }

    @Test func unobserveStopsEventsForThatKeyOrPrefix() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "solo"])
            _ = try observer.call(["op": "observe", "prefix": "group."])
            _ = try observer.call(["op": "observe", "key": "kept"])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "solo", "value": 1])
            _ = try writer.call(["op": "set", "key": "group.a", "value": 1])
            #expect(try observer.nextEvent().string("key") == "solo")
            #expect(try observer.nextEvent().string("key") == "group.a")
            #expect(try observer.call(["op": "unobserve", "key": "solo"]).ok == true)
            #expect(try observer.call(["op": "unobserve", "prefix": "group."]).ok == true)
            _ = try writer.call(["op": "set", "key": "solo", "value": 2])
            _ = try writer.call(["op": "set", "key": "group.a", "value": 2])
            _ = try writer.call(["op": "delete", "key": "group.a"])
            _ = try writer.call(["op": "set", "key": "kept", "value": 2])
            let events = try observer.events { $0.string("key") == "kept" }
            let onlyKeptKeyReported = events.compactMap { $0.string("key") } == ["kept"]
            #expect(onlyKeptKeyReported, "\(events)")
        }
    }

    @Test func conflictsAndFailedRequestsSendNoEvents() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": ""])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": "c", "value": 1])
            _ = try observer.nextEvent()
            _ = try writer.call(["op": "set", "key": "c", "value": 2, "ifVersion": 9_999])
            _ = try writer.call(["op": "delete", "key": "c", "ifVersion": 9_999])
            _ = try writer.call(["op": "delete", "key": "absent"])
            _ = try writer.call(["op": "set", "key": "c", "value": 1])
            _ = try writer.call(["op": "set", "key": "c", "value": "sentinel"])
            let events = try observer.events { $0["new"] == .string("sentinel") }
            #expect(events.count == 1, "failed or unchanging requests sent events: \(events)")
            #expect(events.first?["old"] == .integer(1))
        }
    }

    @Test func noChangeIsLostBetweenTheSnapshotAndTheEventsWhileAWriterHammersTheKey() throws {
        try withServer { server in
            let port = server.port
            let writerDone = DispatchSemaphore(value: 0)
            let writerStarted = DispatchSemaphore(value: 0)
            let totalWrites = 3_000
            DispatchQueue.global().async {
                defer { writerDone.signal() }
                guard let writer = try? WireClient(port: port) else {
                    writerStarted.signal()
                    return
                }
                _ = try? writer.call(["op": "set", "key": "hammer", "value": 0])
                writerStarted.signal()
                for batch in 0..<(totalWrites / 100) {
                    let lines = (1...100).map {
                        "{\"op\":\"set\",\"key\":\"hammer\",\"value\":\(batch * 100 + $0),\"id\":\(batch * 100 + $0)}\n"
                    }
                    guard (try? writer.send(raw: lines.joined())) != nil,
                        (try? writer.reply(to: batch * 100 + 100)) != nil
                    else { return }
                }
            }
            #expect(writerStarted.wait(timeout: .now() + 5) == .success)
            // The observer joins while the writer is at work: once its first batch is in.
            let probe = try server.connect()
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline,
                (try probe.call(["op": "get", "key": "hammer"]))["value"]?.integer ?? 0 == 0
            {}
            let observer = try server.connect()
            let snapshot = try observer.call(["op": "observe", "key": "hammer"])
            let entry = try #require(snapshot["values"]?.array?.first, "\(snapshot)")
            let snapshotVersion = try #require(entry["version"]?.integer)
            var snapshotValue = try #require(entry["value"]?.integer)
            #expect(writerDone.wait(timeout: .now() + 15) == .success, "the writer did not finish")
            var previousVersion = snapshotVersion
            var eventCount = 0
            while snapshotValue < Int64(totalWrites) {
                let event = try observer.nextEvent()
                #expect(
                    server.revisions.isNext(event.integer("version"), after: previousVersion),
                    "gap or reorder after \(previousVersion): \(event)")
                #expect(event["old"] == .integer(snapshotValue), "\(event)")
                snapshotValue = event.integer("new") ?? Int64(totalWrites)
                previousVersion = event.integer("version") ?? previousVersion
                eventCount += 1
                if eventCount > totalWrites { break }
            }
            #expect(eventCount > 0, "the observer never saw an event; the writer was too fast to test anything")
        }
    }
}
