import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// The client's expiring keys: `set(_:_:ttl:)` and a presence with a `ttl`.
@Suite(.timeLimit(.minutes(1))) struct ClientExpiryEndToEndTests {
    @Test func setWithTTLWritesAnExpiringKeyThatGetShowsAndTheServerDeletes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let written = try await alice.set("door.open", true, ttl: 1)
        #expect(written.changed)
        let again = try await alice.set("door.open", true, ttl: 1)
        #expect(!again.changed, "restarting the clock changes nothing")
        let reply = try await alice.send(.get(key: "door.open"))
        #expect(reply["ttl"]?.integerValue == 1, "\(reply)")
        #expect(await eventually(timeout: .seconds(5)) { server.server.store.get("door.open") == nil })
    }

    @Test func aPresenceWithATTLLeavesWhenItsTimeIsUpThoughItsSessionStays() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let bob = try await server.client("bob")
        defer { bob.close() }
        let typing = try await alice.presence(under: "typing.", as: "alice", ttl: 1)
        #expect(typing.ttl == 1)
        let watching = try await bob.presence(under: "typing.", as: "bob")
        #expect(await eventually { watching.members.value.contains("alice") })
        #expect(await eventually(timeout: .seconds(5)) { !watching.members.value.contains("alice") })
        #expect(alice.currentState == .connected)
    }

    @Test func anExpiringMirrorsWritesExpireAndItShowsTheDefaultAgain() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let door = alice.variable("door.open", default: false, ttl: 1)
        try await alice.waitUntilSynchronized()
        door.value = true
        #expect(await eventually { server.server.store.get("door.open")?.expiry?.seconds == 1 })
        #expect(await eventually(timeout: .seconds(5)) { server.server.store.get("door.open") == nil })
        #expect(await eventually { door.value == false })
        #expect(alice.variable("door.open", default: false, ttl: 1) === door, "one mirror per key and ttl")
    }
}
