import Observation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

// The view model and the main-actor handler of docs/client.md ("SwiftUI and
// the main actor"), as written there, and a test that they do what it says.

/// The front door, as a view shows it.
@MainActor @Observable final class DoorModel {
    let locked: Var<Bool>
    let status: Var<MirrorStatus>?

    init(client: ObservatoryClient) {
        locked = client.variable("door.locked", default: false)
        status = client.status(of: locked)
    }

    var isLocked: Bool { locked.value }

    var caption: String {
        guard let status = status?.value else { return "" }
        if status.hasUnacknowledgedWrite { return "Saving…" }
        if status.mayBeStale { return "Offline" }
        return "Last changed by \(status.author?.name ?? "nobody")"
    }

    func setLocked(_ isLocked: Bool) {
        locked.value = isLocked
    }
}

/// Says who else locked or unlocked the door, on the main actor.
@MainActor final class DoorAlerts: Observer {
    nonisolated let receiver = Receiver()
    private(set) var latest: String?

    init(door: Var<Bool>, client: ObservatoryClient) {
        observeOnMainActor(door) { [weak self] update, author in
            guard let author = author as? Author, author !== client.localAuthor else { return }
            self?.latest = "\(author.name) \(update.new ? "locked" : "unlocked") the door"
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct DoorModelDocTests {
    @Test func theDocsModelFollowsARemoteChangeOnTheMainActor() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        var configuration = server.clientConfiguration(name: "panel")
        configuration.deliveryQueue = .main
        let panel = try await ObservatoryClient.connect(configuration, timeout: .seconds(20))
        defer { panel.close() }
        let (model, alerts) = await MainActor.run {
            let model = DoorModel(client: panel)
            return (model, DoorAlerts(door: model.locked, client: panel))
        }
        try await panel.waitUntilSynchronized()
        let viewMustRender = Flag()
        await MainActor.run {
            withObservationTracking {
                _ = model.isLocked
            } onChange: {
                viewMustRender.raise()
            }
        }

        try await alice.set("door.locked", true)

        #expect(await eventually { viewMustRender.isRaised })
        try await panel.waitUntilSynchronized()
        let shown = await MainActor.run { (model.isLocked, model.caption, alerts.latest) }
        #expect(shown.0 == true)
        #expect(shown.1 == "Last changed by alice")
        #expect(shown.2 == "alice locked the door")
    }
}
