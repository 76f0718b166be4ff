import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// A client of several servers: it tries them in turn and moves on when one goes.
@Suite(.timeLimit(.minutes(1))) struct EndpointsEndToEndTests {
    @Test func aClientSkipsAServerThatRefusesAndConnectsToTheNext() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let server = try TestServer()
        defer { server.stop() }
        var configuration = server.clientConfiguration(name: "alice")
        configuration.endpoints = [Endpoint(host: "127.0.0.1", port: refusing.port)] + configuration.endpoints
        let client = try await ObservatoryClient.connect(configuration)
        defer { client.close() }
        try await client.set("sky.color", "red")
        #expect(try await client.get("sky.color", as: String.self) == "red")
    }

    @Test func withoutReconnectsEachServerIsStillTriedOnce() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let server = try TestServer()
        defer { server.stop() }
        var configuration = ClientConfiguration(
            endpoints: [
                Endpoint(host: "127.0.0.1", port: refusing.port), Endpoint(host: "127.0.0.1", port: server.port),
            ])
        configuration.reconnects = false
        let client = try await ObservatoryClient.connect(configuration)
        defer { client.close() }
        try await client.ping()
    }

    @Test func whenItsServerGoesTheClientMovesToTheNextAndItsMirrorsFollow() async throws {
        let first = try TestServer()
        let second = try TestServer()
        defer { second.stop() }
        let writer = try await second.client("writer")
        defer { writer.close() }
        try await writer.set("sky.color", "green")
        var configuration = first.clientConfiguration(name: "watcher")
        configuration.endpoints += [Endpoint(host: "127.0.0.1", port: second.port)]
        let client = try await ObservatoryClient.connect(configuration)
        defer { client.close() }
        let color = client.variable("sky.color", default: "blue")
        try await client.waitUntilSynchronized()
        #expect(color.value == "blue", "the first server has no such key")

        first.stop()
        #expect(await eventually { client.currentState != .connected })
        try await client.waitUntilSynchronized()
        #expect(color.value == "green", "the second server's value, after a reset")
        try await writer.set("sky.color", "red")
        #expect(await eventually { color.value == "red" })
    }
}
