import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// Stand-in servers that accept and then say nothing, or never even accept:
/// every phase of a connection is bounded, and the client moves on.
@Suite(.timeLimit(.minutes(1))) struct PhaseTimeoutEndToEndTests {
    /// Small bounds, a fixed backoff: a client that leaves a silent server quickly.
    private func configuration(port: Int) -> ClientConfiguration {
        var configuration = ClientConfiguration(port: port, name: "probe")
        configuration.connectTimeout = .seconds(1)
        configuration.pingTimeout = .milliseconds(400)
        configuration.backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(100), jitter: 0)
        return configuration
    }

    /// The longest a silent server may hold the client before it tries again:
    /// `connectTimeout + pingTimeout` plus the backoff.
    private let bound: Duration = .seconds(1) + .milliseconds(400) + .milliseconds(100)

    private func reasons(_ states: Recorder<Update<ConnectionState>>) -> [DisconnectReason] {
        states.messages.compactMap { if case .disconnected(let reason) = $0.new { reason } else { nil } }
    }

    @Test func aServerThatNeverAnswersHelloIsLeftAndTriedAgainInTime() async throws {
        let peer = try LoopbackPeer()
        let client = ObservatoryClient(configuration: configuration(port: peer.port))
        defer { client.close() }
        let states = Recorder<Update<ConnectionState>>()
        states.record(client.connectionState)
        try await peer.accept()
        let hello = try #require(await peer.receiveLine())
        #expect(hello.contains("\"op\":\"hello\""))
        let helloRead = ContinuousClock.now
        // Not a byte back: the client must give up on its own and come again.
        try await peer.accept()
        let elapsed = ContinuousClock.now - helloRead
        #expect(elapsed < bound, "reconnected after \(elapsed)")
        #expect(await peer.receiveLine()?.contains("\"op\":\"hello\"") == true)
        #expect(await eventually { reasons(states).contains(.helloTimeout) }, "\(states.messages.map(\.new))")
    }

    @Test func aServerThatAnswersHelloAndThenNothingIsLeftAndTriedAgainInTime() async throws {
        let peer = try LoopbackPeer()
        let client = ObservatoryClient(configuration: configuration(port: peer.port))
        defer { client.close() }
        let states = Recorder<Update<ConnectionState>>()
        states.record(client.connectionState)
        _ = client.variable("sky.color", default: "blue")
        try await peer.accept()
        _ = try #require(await peer.receiveLine())
        peer.send(#"{"ok":true,"id":1,"server":"fake","protocol":1,"session":"s1","author":"probe"}"# + "\n")
        let observe = try #require(await peer.receiveLine())
        #expect(observe.contains("\"op\":\"observe\""))
        let observeRead = ContinuousClock.now
        try await peer.accept()
        let elapsed = ContinuousClock.now - observeRead
        #expect(elapsed < bound, "reconnected after \(elapsed)")
        #expect(await eventually { reasons(states).contains(.resyncTimeout) }, "\(states.messages.map(\.new))")
    }

    @Test func aConnectThatIsNeverAnsweredEndsAtTheConnectTimeout() async throws {
        let peer = try LoopbackPeer(backlog: 0)
        try peer.fillBacklog()
        var configuration = configuration(port: peer.port)
        configuration.connectTimeout = .milliseconds(300)
        configuration.reconnects = false
        let started = ContinuousClock.now
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        #expect(await eventually { client.currentState == .disconnected(.connectTimeout) }, "\(client.currentState)")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(5), "gave up after \(elapsed)")
    }
}
