import Observation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// Mirrors, their statuses and the connection state through Swift's
/// Observation framework, as a SwiftUI view would read them.
@Suite(.timeLimit(.minutes(1))) struct MirrorObservationEndToEndTests {
    /// Tracks `read` once, as a view's body does; the flag rises at the first change.
    private func track(_ read: () -> Void) -> Flag {
        let changed = Flag()
        withObservationTracking(read) { changed.raise() }
        return changed
    }

    @Test func trackingAMirrorsValueHearsOfARemoteChange() async throws {
        try await TestServer.withClients { alice, bob in
            let color = bob.variable("sky.color", default: "grey")
            try await bob.waitUntilSynchronized()
            let changed = track { _ = color.value }

            try await alice.set("sky.color", "blue")

            #expect(await eventually { changed.isRaised })
            #expect(await eventually { color.value == "blue" })
        }
    }

    @Test func aMirrorsStatusTellsTheVersionAndAuthorOfARemoteChange() async throws {
        try await TestServer.withClients { alice, bob in
            let color = bob.variable("sky.color", default: "grey")
            let status = try #require(bob.status(of: color))
            #expect(await eventually { !status.value.mayBeStale })
            #expect(status.value.version == 0)
            #expect(status.value.author == nil)
            let changed = track { _ = status.value }

            let written = try await alice.set("sky.color", "blue")

            #expect(await eventually { changed.isRaised })
            #expect(await eventually { status.value.version == written.version })
            #expect(status.value.author?.name == "alice")
            #expect(status.value.author?.session == alice.localAuthor?.session)
            #expect(!status.value.hasUnacknowledgedWrite)
            #expect(color.value == "blue")
        }
    }

    @Test func aWriteMadeOfflineIsUnacknowledgedAndStaleUntilTheServerTakesIt() async throws {
        var server = try TestServer()
        let port = server.port
        let bob = try await server.client("bob")
        defer { bob.close() }
        let color = bob.variable("sky.color", default: "grey")
        let status = try #require(bob.status(of: color))
        #expect(await eventually { !status.value.mayBeStale })
        let lostServer = track { _ = status.value }

        server.stop()
        #expect(await eventually { lostServer.isRaised && status.value.mayBeStale })
        color.value = "red"
        #expect(await eventually { status.value.hasUnacknowledgedWrite })

        let acknowledged = track { _ = status.value }
        server = try TestServer(port: port)
        defer { server.stop() }

        #expect(await eventually { acknowledged.isRaised })
        #expect(await eventually { !status.value.hasUnacknowledgedWrite && !status.value.mayBeStale })
        #expect(status.value.version > 0)
        #expect(status.value.author?.session == bob.localAuthor?.session)
        #expect(try await bob.get("sky.color", as: String.self) == "red")
    }

    @Test func trackingTheConnectionStateHearsOfADisconnect() async throws {
        let server = try TestServer()
        let client = try await server.client("alice")
        defer { client.close() }
        try await client.waitUntilSynchronized()
        #expect(await eventually { client.connectionState.value == .connected })
        let changed = track { _ = client.connectionState.value }

        server.stop()

        #expect(await eventually { changed.isRaised })
        #expect(await eventually { client.connectionState.value != .connected })
    }

    @Test func aVariableThatIsNoMirrorOfTheClientHasNoStatus() async throws {
        try await TestServer.withClients { alice, bob in
            let bobsMirror = bob.variable("sky.color", default: "grey")

            #expect(alice.status(of: bobsMirror) == nil)
            #expect(alice.status(of: Var("grey")) == nil)
            #expect(bob.status(of: bobsMirror) != nil)
        }
    }
}
