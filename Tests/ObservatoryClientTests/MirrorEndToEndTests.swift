import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct MirrorEndToEndTests {
    @Test func mirrorStartsWithTheRemoteValue() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await alice.set("sky.color", "blue")
        let bob = try await server.client("bob")
        defer { bob.close() }
        let color = bob.variable("sky.color", default: "grey")
        #expect(await eventually { color.value == "blue" })
        #expect(bob.version(ofKey: "sky.color") == (try await bob.get("sky.color")).version)
    }

    @Test func mirrorHoldsTheDefaultWhileTheKeyIsMissing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await server.client("alice")
        defer { client.close() }
        let temperature = client.variable("kitchen.temperature", default: 20.0)
        try await client.waitUntilSynchronized()
        #expect(temperature.value == 20.0)
        #expect(client.version(ofKey: "kitchen.temperature") == 0)
    }

    @Test func twoClientsSeeEachOthersChangesWithTheRightAuthor() async throws {
        try await TestServer.withClients { alice, bob in
            let aliceColor = alice.variable("sky.color", default: "blue")
            let bobColor = bob.variable("sky.color", default: "blue")
            try await alice.waitUntilSynchronized()
            try await bob.waitUntilSynchronized()
            let aliceSees = Recorder<Update<String>>()
            aliceSees.record(aliceColor)
            let bobSees = Recorder<Update<String>>()
            bobSees.record(bobColor)

            aliceColor <- "red"
            // The recorder, not the value: a Var's value changes just before its observers hear of it.
            #expect(await eventually { bobSees.count == 1 })
            #expect(bobColor.value == "red")
            let aliceAuthor = try #require(bobSees.remoteAuthors.last ?? nil)
            #expect(aliceAuthor.name == "alice")
            #expect(aliceAuthor.session == alice.localAuthor?.session)

            bobColor.value = "green"
            #expect(await eventually { aliceSees.count == 2 })
            #expect(aliceColor.value == "green")
            let bobAuthor = try #require(aliceSees.remoteAuthors.last ?? nil)
            #expect(bobAuthor.name == "bob")
            #expect(bobAuthor.session == bob.localAuthor?.session)
            #expect(aliceSees.messages.map(\.new) == ["red", "green"])
            #expect(bobSees.messages.map(\.new) == ["red", "green"])
        }
    }

    @Test func notFromSelfHidesOwnChangesButShowsOthers() async throws {
        try await TestServer.withClients { alice, bob in
            let aliceLight = alice.variable("kitchen.light", default: false)
            let bobLight = bob.variable("kitchen.light", default: false)
            try await alice.waitUntilSynchronized()
            try await bob.waitUntilSynchronized()
            let switchPanel = Recorder<Update<Bool>>()
            switchPanel.record(aliceLight, notFrom: switchPanel)

            aliceLight.set(true, as: switchPanel)
            #expect(await eventually { bobLight.value == true })
            bobLight.value = false
            #expect(await eventually { aliceLight.value == false })
            #expect(await eventually { switchPanel.count == 1 })
            #expect(switchPanel.messages.map(\.new) == [false])
            #expect((switchPanel.remoteAuthors.first ?? nil)?.name == "bob")
        }
    }

    @Test func localChangeMakesExactlyOneUpdateAndNoEcho() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let counter = alice.variable("stats.count", default: 0)
        try await alice.waitUntilSynchronized()
        let seen = Recorder<Update<Int>>()
        seen.record(counter)
        for value in 1...5 { counter <- value }
        #expect(await eventually { alice.version(ofKey: "stats.count") ?? 0 >= 5 })
        let remote = try await alice.get("stats.count", as: Int.self)
        #expect(remote == 5)
        // The ping's reply follows every event the server sent before it, the echoes
        // of the writes included; once delivered, any echo would have been recorded.
        try await alice.ping()
        await alice.waitUntilDelivered()
        #expect(seen.messages.map(\.new) == [1, 2, 3, 4, 5])
        #expect(counter.value == 5)
    }

    @Test func rapidRemoteChangesArriveInVersionOrderOnTheMirror() async throws {
        try await TestServer.withClients { alice, bob in
            let counter = bob.variable("stats.count", default: 0)
            try await bob.waitUntilSynchronized()
            let seen = Recorder<Update<Int>>()
            seen.record(counter)
            for value in 1...50 { try await alice.set("stats.count", value) }
            #expect(await eventually { seen.count == 50 })
            #expect(counter.value == 50)
            #expect(seen.messages.map(\.new) == Array(1...50))
            #expect(seen.messages.map(\.old) == Array(0...49))
        }
    }

    @Test func deletedKeyReturnsToTheDefaultWithAnUpdateFromTheDeleter() async throws {
        try await TestServer.withClients { alice, bob in
            try await alice.set("door.open", true)
            let door = bob.variable("door.open", default: false)
            #expect(await eventually { door.value == true })
            let seen = Recorder<Update<Bool>>()
            seen.record(door)
            try await alice.delete("door.open")
            #expect(await eventually { seen.count == 1 })
            #expect(door.value == false)
            #expect(seen.messages.map(\.new) == [false])
            #expect((seen.remoteAuthors.first ?? nil)?.name == "alice")
        }
    }

    @Test func undecodableRemoteValueIsReportedAndTheMirrorKeepsItsValue() async throws {
        try await TestServer.withClients { alice, bob in
            try await alice.set("kitchen.temperature", 21.5)
            let temperature = bob.variable("kitchen.temperature", default: 20.0)
            #expect(await eventually { temperature.value == 21.5 })
            let errors = Recorder<ClientError>()
            errors.record(bob.errors)

            try await alice.set("kitchen.temperature", "warm")
            #expect(await eventually { errors.count == 1 })
            guard let error = errors.messages.first, error.code == .undecodableValue else {
                Issue.record("expected an undecodable value error, got \(errors.messages)")
                return
            }
            #expect(error.key == "kitchen.temperature")
            #expect(error.typeName == "Double")
            #expect(temperature.value == 21.5)

            try await alice.set("kitchen.temperature", 19)
            #expect(await eventually { temperature.value == 19.0 })
        }
    }

    @Test func compareAndSetThroughAMirrorFailsWhenSomeoneElseWroteFirst() async throws {
        try await TestServer.withClients { alice, bob in
            let aliceLock = alice.variable("lock.owner", default: "nobody")
            let bobLock = bob.variable("lock.owner", default: "nobody")
            try await alice.waitUntilSynchronized()
            try await bob.waitUntilSynchronized()
            let staleVersion = try #require(alice.version(ofKey: "lock.owner"))
            let bobWrite = try await bob.set(bobLock, to: "bob")
            do throws(ClientError) {
                try await alice.set(aliceLock, to: "alice", ifVersion: staleVersion)
                Issue.record("a stale compare-and-set succeeded")
            } catch {
                #expect(error.serverError?.code == .conflict)
                #expect(error.currentVersion == bobWrite.version)
            }
            #expect(
                await eventually { aliceLock.value == "bob" && alice.version(ofKey: "lock.owner") == bobWrite.version })
            try await alice.set(aliceLock, to: "alice")
            #expect(await eventually { bobLock.value == "alice" && aliceLock.value == "alice" })
            await #expect(throws: ClientError.notAMirror) { try await alice.set(Var("loose"), to: "x") }
        }
    }

    @Test func compareAndSetFailsWithATypedConflictCarryingTheCurrentVersion() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let first = try await alice.set("lock.owner", "alice", ifVersion: 0)
        #expect(first.changed)
        do {
            try await alice.set("lock.owner", "mallory", ifVersion: 0)
            Issue.record("a second create with ifVersion 0 succeeded")
        } catch {
            #expect(error.serverError?.code == .conflict)
            #expect(error.currentVersion == first.version)
        }
        let second = try await alice.set("lock.owner", "bob", ifVersion: first.version)
        #expect(second.version > first.version)
        #expect(try await alice.get("lock.owner", as: String.self) == "bob")
    }
}
