import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// The offline store within one test process: a client started again over the
/// same directory, a damaged file, and the cap.
@Suite(.timeLimit(.minutes(1))) struct OfflineEndToEndTests {
    private func configuration(_ server: TestServer, _ name: String, _ directory: TemporaryDirectory)
        -> ClientConfiguration
    {
        var configuration = server.clientConfiguration(name: name)
        configuration.offlineDirectory = directory.path
        return configuration
    }

    /// Waits until the store file holds `key` at `version`.
    private func waitUntilKept(_ key: String, version: Int64, in directory: TemporaryDirectory) async -> Bool {
        let file = OfflineStoreFile(directory: directory.path)
        return await eventually { file.load().entries.contains { $0.key == key && $0.version == version } }
    }

    /// Bob's client keeps `sky.color` at alice's "blue" in `directory` and
    /// closes; alice then sets "grey" and "red", which bob's next client missed.
    private func keepBlueThenMissGreyAndRed(
        _ server: TestServer, _ alice: ObservatoryClient, _ directory: TemporaryDirectory
    ) async throws {
        let first = try await alice.set("sky.color", "blue")
        let before = ObservatoryClient(configuration: configuration(server, "bob", directory))
        _ = before.variable("sky.color", default: "none")
        try await before.waitUntilSynchronized()
        #expect(await waitUntilKept("sky.color", version: first.version, in: directory))
        before.close()
        try await alice.set("sky.color", "grey")
        try await alice.set("sky.color", "red")
    }

    @Test func aClientStartedAgainShowsTheKeptValueAndResumesWithTheAuthorsOfWhatItMissed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await keepBlueThenMissGreyAndRed(server, alice, directory)

        // The client connects as soon as it exists: its deliveries wait until the recorder is in place.
        let delivery = DispatchQueue(label: "offline-test.delivery")
        delivery.suspend()
        var restarted = configuration(server, "bob", directory)
        restarted.deliveryQueue = delivery
        let after = ObservatoryClient(configuration: restarted)
        defer { after.close() }
        let color = after.variable("sky.color", default: "none")
        #expect(color.value == "blue", "the kept value shows before any reply")
        let seen = Recorder<Update<String>>()
        seen.record(color)
        delivery.resume()
        try await after.waitUntilSynchronized()
        #expect(await eventually { seen.count == 2 })
        #expect(seen.messages.map(\.new) == ["grey", "red"], "the changes it missed, resumed, not a snapshot")
        #expect(seen.remoteAuthors.map { $0?.name } == ["alice", "alice"])
        #expect(seen.resets.allSatisfy { $0 == nil })
    }

    @Test func aMirrorMadeAfterTheClientConnectedStillResumesFromTheKeptRevision() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await keepBlueThenMissGreyAndRed(server, alice, directory)

        // The client is in sync before the program makes its mirror: the mirror still resumes.
        // (Its deliveries wait until the recorder is in place.)
        let delivery = DispatchQueue(label: "offline-test.delivery")
        var restarted = configuration(server, "bob", directory)
        restarted.deliveryQueue = delivery
        let after = ObservatoryClient(configuration: restarted)
        defer { after.close() }
        try await after.waitUntilSynchronized()
        delivery.suspend()
        let color = after.variable("sky.color", default: "none")
        #expect(color.value == "blue", "the kept value shows before any reply")
        let seen = Recorder<Update<String>>()
        seen.record(color)
        delivery.resume()
        #expect(await eventually { seen.count == 2 })
        #expect(seen.messages.map(\.new) == ["grey", "red"], "the changes it missed, resumed, not a snapshot")
        #expect(seen.remoteAuthors.map { $0?.name } == ["alice", "alice"])
    }

    @Test func aKeptWriteThatReplacesChangesMadeWhileTheAppWasGoneReportsThemWithTheirAuthors() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await alice.set("door.locked", "closed")
        let before = ObservatoryClient(configuration: configuration(server, "bob", directory))
        _ = before.variable("door.locked", default: "unknown")
        try await before.waitUntilSynchronized()
        before.close()

        // Bob's app starts without a network, writes, and quits.
        let refusing = try RefusingPort()
        var offline = ClientConfiguration(port: refusing.port, name: "bob")
        offline.offlineDirectory = directory.path
        let away = ObservatoryClient(configuration: offline)
        let door = away.variable("door.locked", default: "unknown")
        #expect(door.value == "closed")
        door.value = "open"
        away.close()
        let jammed = try await alice.set("door.locked", "jammed")

        // The app mirrors the key as it starts, before the client is in sync.
        let back = ObservatoryClient(configuration: configuration(server, "bob", directory))
        defer { back.close() }
        let doorAgain = back.variable("door.locked", default: "unknown")
        let reports = Recorder<ConflictReport>()
        reports.record(back.conflicts)
        #expect(doorAgain.value == "open")
        #expect(await eventually { reports.count == 1 })
        #expect(reports.messages.first?.replaced.map(\.author.name) == ["alice"])
        #expect(reports.messages.first?.replaced.map(\.version) == [jammed.version])
        #expect(reports.messages.first?.written == "open")
        #expect(try await alice.get("door.locked", as: String.self) == "open")
    }

    @Test func aKeptWriteIsSentAfterARestartEvenIfTheKeyIsNotMirroredAgain() async throws {
        let refusing = try RefusingPort()
        let directory = try TemporaryDirectory()
        var offline = ClientConfiguration(port: refusing.port, name: "panel")
        offline.offlineDirectory = directory.path
        let away = ObservatoryClient(configuration: offline)
        away.variable("lamp.on", default: false).value = true
        away.close()
        let file = OfflineStoreFile(directory: directory.path)
        #expect(file.load().entries.map(\.write?.value) == [true])

        let server = try TestServer()
        defer { server.stop() }
        let back = ObservatoryClient(configuration: configuration(server, "panel", directory))
        defer { back.close() }
        #expect(await eventually { file.load().entries.isEmpty }, "no longer kept once answered")
        let observer = try await server.client("observer")
        defer { observer.close() }
        #expect(try await observer.get("lamp.on", as: Bool.self) == true)
    }

    @Test func aDamagedStoreIsReportedOnErrorsAndSetAside() async throws {
        let refusing = try RefusingPort()
        let directory = try TemporaryDirectory()
        try Data("these bytes are no store".utf8).write(
            to: URL(fileURLWithPath: directory.path(of: OfflineStoreFile.name)))
        var configuration = ClientConfiguration(port: refusing.port, name: "panel")
        configuration.offlineDirectory = directory.path
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        let errors = Recorder<ClientError>()
        errors.record(client.errors)
        let mirror = client.variable("door.locked", default: false)
        #expect(mirror.value == false)
        #expect(await eventually { errors.count >= 1 })
        #expect(errors.messages.first?.code == .offlineStoreSetAside)
        #expect(directory.names().contains { $0.hasPrefix(OfflineStoreFile.name + ".damaged-") })
        mirror.value = true
        #expect(OfflineStoreFile(directory: directory.path).load().entries.map(\.key) == ["door.locked"])
    }

    @Test func aWriteBeyondTheCapIsStillSentAndTheFullStoreIsReported() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var small = configuration(server, "panel", directory)
        small.offlineStoreLimit = 200
        let client = try await ObservatoryClient.connect(small)
        defer { client.close() }
        let errors = Recorder<ClientError>()
        errors.record(client.errors)
        let note = client.variable("note", default: "")
        note.value = String(repeating: "x", count: 300)
        try await client.waitUntilSynchronized()
        _ = try await client.get("note") // answered after the write, on the same connection
        #expect(await eventually { errors.messages.contains { $0.code == .offlineStoreFull } })
        #expect(try await client.get("note", as: String.self).count == 300)
        #expect(OfflineStoreFile(directory: directory.path).load().entries.isEmpty)
    }
}
