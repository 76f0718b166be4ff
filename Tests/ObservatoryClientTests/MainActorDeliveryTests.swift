import Dispatch
import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// Handlers for the main actor: where mirrors deliver by default, and what
/// `observeOnMainActor` does on and off the main thread.
@Suite(.timeLimit(.minutes(1))) struct MainActorDeliveryTests {
    /// An observer owned by the test.
    private final class Watcher: Observer, Sendable {
        let receiver = Receiver()
    }

    /// Marks the main queue for this suite, to tell where a handler ran. (On
    /// Linux a parked main thread leaves the main queue to another thread.)
    private static let mainQueueMark: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// What a main-actor handler saw: each message, and whether it ran on the main queue.
    @MainActor private final class MainActorModel {
        var messages: [String] = []
        var ranOnMainQueue: [Bool] = []

        func receive(_ message: String) {
            messages.append(message)
            ranOnMainQueue.append(Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueMark) == true)
        }
    }

    @Test func theDefaultDeliveryQueueIsMainOnApplePlatformsAndTheClientsOwnElsewhere() {
        let configuration = ClientConfiguration()
        #if canImport(Darwin)
            #expect(configuration.deliveryQueue === DispatchQueue.main)
        #else
            #expect(configuration.deliveryQueue == nil)
        #endif
    }

    @Test @MainActor func aMainActorHandlerRunsOnTheMainActorForASendFromIt() {
        let watcher = Watcher()
        let model = MainActorModel()
        let color = Var("grey")
        watcher.observeOnMainActor(color) { update in model.receive(update.new) }

        color.value = "blue"

        #expect(model.messages == ["blue"])
        #expect(model.ranOnMainQueue == [true])
    }

    @Test func remoteChangesReachAMainActorHandlerWhenTheClientDeliversOnMain() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        var configuration = server.clientConfiguration(name: "bob")
        configuration.deliveryQueue = .main
        let bob = try await ObservatoryClient.connect(configuration, timeout: .seconds(20))
        defer { bob.close() }
        let color = bob.variable("sky.color", default: "grey")
        try await bob.waitUntilSynchronized()
        let watcher = Watcher()
        let model = MainActorModel()
        let authors = Locked<[String]>([])
        watcher.observeOnMainActor(color) { update, author in
            model.receive(update.new)
            authors.withLock { $0.append((author as? Author)?.name ?? "?") }
        }

        try await alice.set("sky.color", "blue")

        #expect(await eventually { authors.withLock { $0.count } == 1 })
        #expect(await model.messages == ["blue"])
        #expect(await model.ranOnMainQueue == [true])
        #expect(authors.withLock { $0 } == ["alice"])
    }

    @Test func aMainActorHandlerReachedOffTheMainQueueStopsTheProgramNamingTheFix() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let watcher = Watcher()
            let color = Var("grey")
            watcher.observeOnMainActor(color) { _ in }
            await withCheckedContinuation { continuation in
                Thread {
                    color.value = "blue"
                    continuation.resume()
                }.start()
            }
            withExtendedLifetime(watcher) {}
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("ClientConfiguration.deliveryQueue = .main"))
    }
}
