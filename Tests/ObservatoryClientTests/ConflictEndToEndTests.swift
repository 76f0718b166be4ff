import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// Conflict reports: an offline write meets a change by someone else.
@Suite(.timeLimit(.minutes(1))) struct ConflictEndToEndTests {
    /// Ends the client's current connection from the client's side, as a broken network would.
    private func breakConnection(of client: ObservatoryClient) {
        client.state.withLock { $0.machine.link }?.end(.pingTimeout)
    }

    /// Alice, who stays away long enough after a broken connection for the
    /// others to write, with a mirror of `door.locked` holding `"closed"` by bob.
    private func setUp(_ server: TestServer, policy: ConflictPolicy) async throws -> (
        alice: ObservatoryClient, bob: ObservatoryClient, door: Var<String>, reports: Recorder<ConflictReport>
    ) {
        var slow = server.clientConfiguration(name: "alice")
        slow.backoff = ReconnectBackoff(initial: .milliseconds(400), maximum: .milliseconds(400), jitter: 0)
        let alice = try await ObservatoryClient.connect(slow)
        let bob = try await server.client("bob")
        let door = alice.variable("door.locked", default: "unknown", onConflict: policy)
        let reports = Recorder<ConflictReport>()
        reports.record(alice.conflicts)
        try await bob.set("door.locked", "closed")
        try await alice.waitUntilSynchronized()
        #expect(await eventually { door.value == "closed" })
        return (alice, bob, door, reports)
    }

    /// Alice writes "open" while her connection is broken, bob writes "jammed"
    /// meanwhile; returns bob's write and alice's one report, once she is back in sync.
    private func writeOfflineWhileBobChangesTheDoor(
        _ alice: ObservatoryClient, _ bob: ObservatoryClient, _ door: Var<String>, _ reports: Recorder<ConflictReport>
    ) async throws -> (jammed: WriteResult, report: ConflictReport) {
        breakConnection(of: alice)
        #expect(await eventually { alice.currentState != .connected })
        door.value = "open"
        let jammed = try await bob.set("door.locked", "jammed")
        try await alice.waitUntilSynchronized()
        #expect(await eventually { reports.count == 1 })
        return (jammed, try #require(reports.messages.first))
    }

    @Test func anOfflineWriteThatReplacedAChangeReportsItWithItsAuthor() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, door, reports) = try await setUp(server, policy: .localWins)
        defer {
            alice.close()
            bob.close()
        }
        let (jammed, report) = try await writeOfflineWhileBobChangesTheDoor(alice, bob, door, reports)
        #expect(report.key == "door.locked")
        #expect(report.written == "open")
        #expect(report.replaced.map(\.old) == ["closed"])
        #expect(report.replaced.map(\.new) == ["jammed"])
        #expect(report.replaced.map(\.version) == [jammed.version])
        #expect(report.replaced.map(\.author.name) == ["bob"])
        let entry = try await bob.get("door.locked")
        #expect(report.resolution == .localWrite(version: entry.version))
        #expect(try entry.value.decode(String.self) == "open", "the offline write won")
    }

    @Test func withServerWinsTheOfflineWriteGivesWayAndIsReported() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, door, reports) = try await setUp(server, policy: .serverWins)
        defer {
            alice.close()
            bob.close()
        }
        let (jammed, report) = try await writeOfflineWhileBobChangesTheDoor(alice, bob, door, reports)
        #expect(report.written == "open")
        #expect(report.replaced.map(\.author.name) == ["bob"])
        #expect(report.resolution == .serverValue)
        #expect(await eventually { door.value == "jammed" })
        let entry = try await bob.get("door.locked")
        #expect(entry.version == jammed.version, "the offline write was not sent")
    }

    @Test func aWriteThatMetNoChangeReportsNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, door, reports) = try await setUp(server, policy: .localWins)
        defer {
            alice.close()
            bob.close()
        }
        breakConnection(of: alice)
        #expect(await eventually { alice.currentState != .connected })
        let before = alice.version(ofKey: "door.locked") ?? 0
        door.value = "open"
        try await alice.waitUntilSynchronized()
        #expect(await eventually { (alice.version(ofKey: "door.locked") ?? 0) > before }, "the write was acknowledged")
        await alice.waitUntilDelivered()
        #expect(reports.count == 0)
    }
}
