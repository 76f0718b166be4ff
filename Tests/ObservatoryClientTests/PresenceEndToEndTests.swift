import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct PresenceEndToEndTests {
    @Test func aPresenceAnnouncesItselfAgainAfterAReconnect() async throws {
        var server = try TestServer()
        let port = server.port
        let alice = try await server.client("alice")
        defer { alice.close() }
        _ = try await alice.presence(under: "lobby.", as: "alice")
        server.stop()
        #expect(await eventually { alice.currentState != .connected })
        // A server in memory starts empty: only alice's presence can write her key again.
        server = try TestServer(port: port)
        defer { server.stop() }
        try await alice.waitUntilSynchronized()
        let bob = try await server.client("bob")
        defer { bob.close() }
        let seen = bob.variable("lobby.alice", default: false)
        #expect(await eventually { seen.value })
    }
}
