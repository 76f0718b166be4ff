import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// `reconnectNow()`, as an app calls it when it comes to the foreground or its network changes.
@Suite(.timeLimit(.minutes(1))) struct ReconnectNowEndToEndTests {
    @Test func aClientWaitingOutALongBackoffConnectsAtOnce() async throws {
        var server = try TestServer()
        let port = server.port
        var configuration = server.clientConfiguration(name: "panel")
        // Far longer than the test may run: only reconnectNow can bring it back in time.
        configuration.backoff = ReconnectBackoff(initial: .seconds(120), maximum: .seconds(120), jitter: 0)
        let client = try await ObservatoryClient.connect(configuration)
        defer { client.close() }
        server.stop()
        #expect(await eventually { if case .disconnected = client.currentState { true } else { false } })
        server = try TestServer(port: port)
        defer { server.stop() }
        client.reconnectNow()
        try await client.waitUntilSynchronized(timeout: .seconds(20))
        try await client.set("sky.color", "red")
        let other = try await server.client("other")
        defer { other.close() }
        #expect(try await other.get("sky.color", as: String.self) == "red")
    }

    @Test func aConnectedClientStaysConnectedThroughReconnectNow() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await server.client("panel")
        defer { client.close() }
        let states = Recorder<Update<ConnectionState>>()
        states.record(client.connectionState)
        for _ in 0..<5 { client.reconnectNow() }
        try await client.waitUntilSynchronized()
        try await client.set("sky.color", "green")
        #expect(try await client.get("sky.color", as: String.self) == "green")
        #expect(client.currentState == .connected)
        #expect(states.messages.isEmpty, "no state change: \(states.messages.map(\.new))")
    }
}
