import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct ReconnectEndToEndTests {
    @Test func mirrorsReconnectAfterARestartOnTheSamePortAndConverge() async throws {
        var server = try TestServer()
        let port = server.port
        let alice = try await server.client("alice")
        let bob = try await server.client("bob")
        defer {
            alice.close()
            bob.close()
        }
        let aliceColor = alice.variable("sky.color", default: "blue")
        let bobColor = bob.variable("sky.color", default: "blue")
        let states = Recorder<Update<ConnectionState>>()
        states.record(bob.connectionState)
        aliceColor <- "red"
        #expect(await eventually { bobColor.value == "red" })
        let bobSees = Recorder<Update<String>>()
        bobSees.record(bobColor)

        server.stop()
        #expect(await eventually { bob.currentState != .connected && alice.currentState != .connected })
        server = try TestServer(port: port)
        defer { server.stop() }
        try await alice.waitUntilSynchronized()
        try await bob.waitUntilSynchronized()

        // The in-memory server lost sky.color and its history (a new epoch):
        // both mirrors are back at the default, and Bob saw that as an Update
        // authored by a Reset, not by a remote author.
        #expect(await eventually { bobSees.count == 1 && aliceColor.value == "blue" })
        #expect(bobColor.value == "blue")
        #expect(bobSees.messages.map(\.new) == ["blue"])
        #expect(bobSees.resets.first??.reason.contains("epoch") == true, "\(bobSees.resets)")

        aliceColor <- "green"
        #expect(await eventually { bobSees.count == 2 })
        #expect(bobColor.value == "green")
        #expect(bobSees.remoteAuthors.last??.name == "alice")
        // The reset was announced: disconnected, connecting, reset, connected.
        let phases = states.messages.map(\.new)
        let sawDisconnection = phases.contains { if case .disconnected = $0 { true } else { false } }
        #expect(sawDisconnection)
        let lastThree = Array(phases.suffix(3))
        #expect(lastThree.first == .connecting && lastThree.last == .connected, "\(phases)")
        #expect(lastThree.count == 3 && lastThree[1].description.hasPrefix("reset ("), "\(phases)")
    }

    @Test func writesMadeWhileDisconnectedAreSentAfterTheResync() async throws {
        var server = try TestServer()
        let port = server.port
        let alice = try await server.client("alice")
        let bob = try await server.client("bob")
        defer {
            alice.close()
            bob.close()
        }
        let aliceMode = alice.variable("house.mode", default: "home")
        let bobMode = bob.variable("house.mode", default: "home")
        try await alice.waitUntilSynchronized()
        try await bob.waitUntilSynchronized()

        server.stop()
        #expect(await eventually { alice.currentState != .connected && bob.currentState != .connected })
        aliceMode <- "away"
        await #expect(throws: ClientError.self) { try await alice.set("house.other", 1) }
        server = try TestServer(port: port)
        defer { server.stop() }
        try await alice.waitUntilSynchronized()

        try await bob.waitUntilSynchronized()
        #expect(await eventually { bobMode.value == "away" })
        #expect(aliceMode.value == "away")
        #expect(try await bob.get("house.mode", as: String.self) == "away")
    }

    @Test func requestsWhileDisconnectedFailAtOnceWithNotConnected() async throws {
        let server = try TestServer()
        let alice = try await server.client("alice")
        defer { alice.close() }
        server.stop()
        #expect(await eventually { alice.currentState != .connected })
        do {
            _ = try await alice.get("anything")
            Issue.record("get succeeded without a server")
        } catch {
            guard error.code == .notConnected else {
                Issue.record("expected notConnected, got \(error)")
                return
            }
        }
    }

    @Test func connectFailsClearlyWhenNothingListensAndReconnectIsOff() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        var configuration = ClientConfiguration(port: closed.port)
        configuration.reconnects = false
        do {
            _ = try await ObservatoryClient.connect(configuration, timeout: .seconds(5))
            Issue.record("connected to a closed port")
        } catch {
            guard error.code == .connectionFailed else {
                Issue.record("expected connectionFailed, got \(error)")
                return
            }
            #expect(error.message.contains("Connection refused"))
        }
    }
}
