import Dispatch
import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct LivenessTests {
    /// A server that says hello and then never answers again: a half-open connection.
    @Test func unansweredPingCountsAsADeadConnection() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, name: "probe")
        configuration.reconnects = false
        configuration.pingInterval = .milliseconds(100)
        configuration.pingTimeout = .milliseconds(300)
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await peer.accept()
        let hello = try #require(await peer.receiveLine())
        #expect(hello.contains("\"op\":\"hello\""))
        #expect(hello.contains("\"name\":\"probe\""))
        peer.send(#"{"ok":true,"id":1,"server":"fake","protocol":1,"session":"s1","author":"probe"}"# + "\n")
        // Not waitUntilSynchronized: it pings too, and this server answers no ping.
        #expect(await eventually { client.currentState == .connected })
        let ping = try #require(await peer.receiveLine())
        #expect(ping == #"{"id":2,"op":"ping"}"#)
        #expect(await eventually { client.currentState == .disconnected(.pingTimeout) })
    }

    @Test func answeredPingsKeepTheConnection() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, name: "probe")
        configuration.reconnects = false
        configuration.pingInterval = .milliseconds(50)
        // Generous, so a loaded machine does not miss it; the pings below span longer.
        configuration.pingTimeout = .seconds(2)
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await peer.accept()
        _ = try #require(await peer.receiveLine())
        peer.send(#"{"ok":true,"id":1,"server":"fake","protocol":1,"session":"s1","author":"probe"}"# + "\n")
        // Answer pings for longer than the timeout: a client that ignored the
        // answers would have given up by the end.
        let started = ContinuousClock.now
        var identifier = 2
        while ContinuousClock.now - started < .seconds(3), identifier < 500 {
            let ping = try #require(await peer.receiveLine())
            #expect(ping == "{\"id\":\(identifier),\"op\":\"ping\"}")
            peer.send("{\"ok\":true,\"id\":\(identifier)}\n")
            identifier += 1
        }
        #expect(client.currentState == .connected)
    }

    @Test func rejectedHelloEndsTheConnectionWithTheServersMessage() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, token: "wrong")
        configuration.reconnects = false
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await peer.accept()
        _ = try #require(await peer.receiveLine())
        peer.send(#"{"ok":false,"id":1,"error":{"code":"unauthenticated","message":"unknown token"}}"# + "\n")
        #expect(await eventually { client.currentState == .disconnected(.rejected("unauthenticated: unknown token")) })
    }

    @Test func garbageFromTheServerIsAProtocolErrorNotACrash() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port)
        configuration.reconnects = false
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await peer.accept()
        _ = try #require(await peer.receiveLine())
        peer.send("this is not json\n")
        #expect(
            await eventually {
                if case .disconnected(.protocolError) = client.currentState { return true }
                return false
            })
    }

    @Test func updatesArriveOnTheChosenQueue() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let queue = DispatchQueue(label: "test.delivery", attributes: .concurrent)
        let marker = DispatchSpecificKey<String>()
        queue.setSpecific(key: marker, value: "chosen")
        var configuration = server.clientConfiguration(name: "bob")
        configuration.deliveryQueue = queue
        let bob = try await ObservatoryClient.connect(configuration)
        let alice = try await server.client("alice")
        defer {
            alice.close()
            bob.close()
        }
        let color = bob.variable("sky.color", default: "blue")
        try await bob.waitUntilSynchronized()
        let onChosenQueue = Flag()
        let elsewhere = Flag()
        let watcher = Recorder<Update<String>>()
        watcher.observe(color) { (_: Update<String>) in
            if DispatchQueue.getSpecific(key: marker) == "chosen" { onChosenQueue.raise() } else { elsewhere.raise() }
        }
        try await alice.set("sky.color", "red")
        // The handler's flags, not the value: a Var's value changes just before its observers hear of it.
        #expect(await eventually { onChosenQueue.isRaised || elsewhere.isRaised })
        #expect(color.value == "red")
        #expect(onChosenQueue.isRaised)
        #expect(!elsewhere.isRaised)
    }
}
