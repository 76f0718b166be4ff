import Foundation
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct ChangesEndToEndTests {
    @Test func prefixStreamDeliversChangesInOrderWithTheirAuthor() async throws {
        try await TestServer.withClients { alice, bob in
            let changes = try await bob.changes(of: .prefix("sky."))
            try await alice.set("sky.color", "red")
            try await alice.set("ground.color", "brown")
            try await alice.set("sky.color", "blue")
            try await alice.delete("sky.color")
            var received: [RemoteChange] = []
            for await change in changes {
                received.append(change)
                if received.count == 3 { break }
            }
            #expect(received.map(\.key) == ["sky.color", "sky.color", "sky.color"])
            #expect(received.map(\.old) == [nil, "red", "blue"])
            #expect(received.map(\.new) == ["red", "blue", nil])
            #expect(received.map(\.version) == received.map(\.version).sorted())
            let allFromOneAliceAuthor = received.allSatisfy {
                $0.author.name == "alice" && $0.author === received[0].author
            }
            #expect(allFromOneAliceAuthor)
        }
    }

    @Test func aKeyCanBeWatchedAgainAfterItsStreamEnded() async throws {
        try await TestServer.withClients { alice, bob in
            for value in [true, false] {
                let changes = try await bob.changes(of: .key("door.open"))
                try await alice.set("door.open", value)
                var received: [JSONValue?] = []
                for await change in changes {
                    received.append(change.new)
                    break
                }
                #expect(received == [.bool(value)])
            }
        }
    }

    @Test func observingAnInvalidKeyThrowsTheServersError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        await #expect(throws: ClientError.self) { _ = try await alice.changes(of: .key("has space")) }
        do {
            _ = try await alice.changes(of: .key("has space"))
        } catch {
            #expect(error.serverError?.code == .invalidKey)
        }
    }

    @Test func requestsMapEveryOutcome() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await alice.set("a.one", 1)
        try await alice.set("a.two", ["x": 2] as JSONValue)
        try await alice.set("b.three", 3)
        let unchanged = try await alice.set("a.one", 1)
        #expect(unchanged.changed == false)
        #expect(try await alice.list(prefix: "a.").map(\.key) == ["a.one", "a.two"])
        let entry = try await alice.get("a.two")
        #expect(entry.value == ["x": 2])
        #expect(entry.author === alice.localAuthor)
        try await alice.delete("a.one")
        do {
            _ = try await alice.get("a.one")
            Issue.record("a deleted key was found")
        } catch {
            #expect(error.serverError?.code == .notFound)
        }
        do {
            _ = try await alice.get("a.two", as: Int.self)
            Issue.record("an object decoded as Int")
        } catch {
            guard error.code == .undecodableValue else {
                Issue.record("expected undecodableValue, got \(error)")
                return
            }
            #expect(error.key == "a.two" && error.typeName == "Int")
        }
    }
}
