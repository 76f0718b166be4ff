import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// Issue 10 from the client's side: resuming after a broken connection or a
/// restart, resets, retried writes, session-bound keys and presence.
@Suite(.timeLimit(.minutes(1))) struct ResumeEndToEndTests {
    /// Ends the client's current connection from the client's side, as a broken network would.
    private func breakConnection(of client: ObservatoryClient) {
        client.state.withLock { $0.machine.link }?.end(.pingTimeout)
    }

    @Test func afterABrokenConnectionTheMirrorShowsEveryMissedChangeOnceInOrderWithItsAuthor() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        var slow = server.clientConfiguration(name: "bob")
        // Bob stays away long enough for every write below to happen while he is gone.
        slow.backoff = ReconnectBackoff(initial: .milliseconds(400), maximum: .milliseconds(400), jitter: 0)
        let bob = try await ObservatoryClient.connect(slow)
        defer {
            alice.close()
            bob.close()
        }
        let bobCount = bob.variable("counter", default: 0)
        try await alice.set("counter", 0)
        try await bob.waitUntilSynchronized()
        let seen = Recorder<Update<Int>>()
        seen.record(bobCount)
        let stream = try await bob.changes(of: .key("counter"))

        breakConnection(of: bob)
        #expect(await eventually { bob.currentState != .connected })
        for value in 1...20 { try await alice.set("counter", value) }
        try await alice.delete("counter")
        try await alice.set("counter", 21)
        try await bob.waitUntilSynchronized()

        #expect(await eventually { seen.count == 22 })
        #expect(
            seen.messages.map(\.new) == Array(1...20) + [0, 21], "every change once, in order, the delete included")
        #expect(seen.remoteAuthors.allSatisfy { $0?.name == "alice" }, "real authors, no reset")
        var streamed: [Int64] = []
        for await change in stream {
            streamed.append(change.version)
            if streamed.count == 22 { break }
        }
        #expect(streamed == Array(2...23), "the stream resumed too: \(streamed)")
    }

    @Test func aClientResumesAcrossARestartOfAServerWithStorage() async throws {
        let directory = NSTemporaryDirectory() + "observatory-client-resume-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var server = try TestServer(dataDirectory: directory)
        let port = server.port
        let alice = try await server.client("alice")
        let bob = try await server.client("bob")
        defer {
            alice.close()
            bob.close()
        }
        let bobMode = bob.variable("house.mode", default: "home")
        try await alice.set("house.mode", "away")
        try await bob.waitUntilSynchronized()
        let states = Recorder<Update<ConnectionState>>()
        states.record(bob.connectionState)
        let seen = Recorder<Update<String>>()
        seen.record(bobMode)

        server.stop()
        server = try TestServer(port: port, dataDirectory: directory)
        defer { server.stop() }
        try await alice.waitUntilSynchronized()
        for mode in ["night", "home", "vacation"] { try await alice.set("house.mode", mode) }
        try await bob.waitUntilSynchronized()

        #expect(await eventually { seen.count == 3 })
        #expect(seen.messages.map(\.new) == ["night", "home", "vacation"])
        #expect(seen.remoteAuthors.allSatisfy { $0?.name == "alice" })
        #expect(!states.messages.map(\.new).contains { $0.description.hasPrefix("reset") }, "same epoch: no reset")
    }

    @Test func aWriteWhoseReplyWasLostIsSentAgainWithTheSameRequestId() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, name: "writer")
        configuration.backoff = ReconnectBackoff(initial: .milliseconds(10), maximum: .milliseconds(10), jitter: 0)
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        let hello =
            #"{"ok":true,"id":1,"server":"fake","protocol":1,"session":"s1","author":"writer","revision":0,"epoch":"e"}"#
        try await peer.accept()
        _ = await peer.receiveLine()
        peer.send(hello + "\n")
        #expect(await eventually { client.currentState == .connected })

        let write = Task { try await client.set("orders.1", ["qty": 2]) }
        let first = try #require(await peer.receiveLine())
        peer.closeConnection() // the reply is lost with the connection
        try await peer.accept()
        // Request ids grow for the client's lifetime: the second hello has an id of its own.
        let secondHello = try #require(await peer.receiveLine())
        let helloId = (try? JSONValue.parse(secondHello))?["id"]?.integerValue ?? 0
        peer.send(hello.replacingOccurrences(of: #""id":1,"#, with: "\"id\":\(helloId),") + "\n")
        let second = try #require(await nextWrite(from: peer))
        let firstId = (try? JSONValue.parse(first))?["requestId"]
        #expect(firstId != nil && (try? JSONValue.parse(second))?["requestId"] == firstId, "\(first) then \(second)")
        let id = (try? JSONValue.parse(second))?["id"]?.integerValue ?? 0
        peer.send(#"{"ok":true,"id":\#(id),"key":"orders.1","version":1,"changed":true,"duplicate":true}"# + "\n")
        let result = try await write.value
        #expect(result.version == 1)
    }

    /// The next request other than `ping` (pings are answered, as a server would).
    private func nextWrite(from peer: LoopbackPeer) async -> String? {
        for _ in 0..<20 {
            guard let line = await peer.receiveLine(), let request = try? JSONValue.parse(line) else { return nil }
            guard request["op"] == "ping" else { return line }
            let id = request["id"]?.integerValue ?? 0
            peer.send(#"{"ok":true,"id":\#(id),"revision":0,"epoch":"e"}"# + "\n")
        }
        return nil
    }

    @Test func aSessionBoundMirrorIsDeletedWhenItsClientGoesAndWrittenAgainAfterAReconnect() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let watcher = try await server.client("watcher")
        let alice = try await server.client("alice")
        defer {
            watcher.close()
            alice.close()
        }
        let here = alice.variable("presence.alice", default: false, sessionBound: true)
        let seen = watcher.variable("presence.alice", default: false)
        here <- true
        #expect(await eventually { seen.value })
        let entry = try await watcher.get("presence.alice")
        #expect(entry.author.name == "alice")

        breakConnection(of: alice)
        try await alice.waitUntilSynchronized()
        #expect(await eventually { seen.value }, "written again for the new session")
        let again = try await watcher.get("presence.alice")
        #expect(again.author.session != entry.author.session)

        alice.close()
        #expect(await eventually { !seen.value }, "deleted once the session ended")
    }

    /// The README's chat-room example ("Session-bound keys and presence"), as written there.
    @Test func theReadmesChatRoomExampleRuns() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await server.client("alice")
        let bob = try await server.client("bob")
        defer {
            client.close()
            bob.close()
        }
        let bobsLobby = try await bob.presence(under: "chat.lobby.online.", as: "bob")
        let chatWindow = FreeObserver()
        let printed = Locked<[String]>([])
        func print(_ items: Any...) { printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }

        let lobby = try await client.presence(under: "chat.lobby.online.", as: "alice")
        print("online:", lobby.members.value.sorted()) // ["alice", "bob"]
        chatWindow.observe(lobby.members) { update, author in // an ordinary Var<Set<String>>
            let who = (author as? Author)?.name ?? "?"
            let joined = update.new.subtracting(update.old)
            let left = update.old.subtracting(update.new)
            if !joined.isEmpty { print("\(who) joined") }
            if !left.isEmpty { print("\(who) left") }
        }
        try await bob.leave(bobsLobby)
        #expect(await eventually { printed.withLock { $0 }.count == 2 })
        #expect(printed.withLock { $0 } == ["online: [\"alice\", \"bob\"]", "bob left"])
        try await client.leave(lobby)
        await #expect(throws: ClientError.self, "leaving deletes the announcement") {
            try await bob.get("chat.lobby.online.alice")
        }
    }
}
