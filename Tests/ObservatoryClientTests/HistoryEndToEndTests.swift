import Foundation
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// The client's history call: typed changes with authors and dates, pages,
/// and the server's refusals as typed errors.
@Suite(.timeLimit(.minutes(1))) struct HistoryEndToEndTests {
    private struct Door: Codable, Sendable, Equatable {
        var locked: Bool
    }

    @Test func historyReturnsTypedChangesWithAuthorsAndDates() async throws {
        try await TestServer.withClients { alice, bob in
            let started = Date()
            try await alice.set("door", Door(locked: true))
            try await bob.set("door", Door(locked: false))
            try await alice.delete("door")

            let page = try await bob.history(HistoryQuery(.key("door")), as: Door.self)
            #expect(page.entries.map(\.author) == ["alice", "bob", "alice"])
            #expect(page.entries.map(\.old) == [nil, Door(locked: true), Door(locked: false)])
            #expect(page.entries.map(\.new) == [Door(locked: true), Door(locked: false), nil])
            #expect(page.entries.map(\.isDelete) == [false, false, true])
            #expect(page.entries.allSatisfy { abs($0.date.timeIntervalSince(started)) < 60 })
            #expect(page.entries.map(\.version) == [1, 2, 3])
            #expect(!page.more && page.revision == 3 && page.horizon == 0)

            let byAlice = try await bob.history(of: "door", as: Door.self, author: "alice", limit: 1)
            #expect(byAlice.map(\.version) == [3], "newest first")
        }
    }

    @Test func refusalsAndUndecodableValuesAreTypedErrors() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await alice.set("count", 3)
        await #expect(throws: ClientError.self) {
            _ = try await alice.history(HistoryQuery(.key("count"), limit: 5_000), as: Int.self)
        }
        do {
            _ = try await alice.history(HistoryQuery(.key("count")), as: Door.self)
            Issue.record("a number decoded as a Door")
        } catch {
            #expect(error.code == .undecodableValue)
        }
    }
}
