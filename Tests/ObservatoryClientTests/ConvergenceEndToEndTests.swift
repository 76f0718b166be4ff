import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConvergenceEndToEndTests {
    @Test(arguments: [UInt64(7), 42, 2026])
    func concurrentRandomWritesFromThreeClientsConverge(seed: UInt64) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let names = ["alice", "bob", "carol"]
        var connected: [ObservatoryClient] = []
        for name in names { connected.append(try await server.client(name)) }
        let clients = connected
        defer { for client in clients { client.close() } }
        let mirrors = clients.map { $0.variable("race.value", default: -1) }
        for client in clients { try await client.waitUntilSynchronized() }
        let versionWentBack = Flag()
        let watchers = clients.map { client in
            Task {
                var highest: Int64 = 0
                while !Task.isCancelled {
                    let version = client.version(ofKey: "race.value") ?? 0
                    if version < highest { versionWentBack.raise() }
                    highest = max(highest, version)
                    // Paces the sampling, so that three samplers leave the two cores to the clients.
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        }

        var generator = SeededGenerator(seed: seed)
        let plans: [[(value: Int, viaMirror: Bool, pause: Int)]] = (0..<3).map { _ in
            (0..<40).map { _ in
                (
                    Int.random(in: 0..<1000, using: &generator), Bool.random(using: &generator),
                    Int.random(in: 0..<3, using: &generator)
                )
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, plan) in plans.enumerated() {
                let client = clients[index]
                let mirror = mirrors[index]
                group.addTask {
                    for step in plan {
                        if step.viaMirror {
                            mirror.value = step.value
                        } else {
                            _ = try? await client.set("race.value", step.value)
                        }
                        // A random pause paces the load, to interleave the three clients' writes differently.
                        if step.pause > 0 { try? await Task.sleep(for: .milliseconds(step.pause)) }
                    }
                }
            }
        }

        // The server answers each connection in order, so a request answered after
        // a client's own writes shows that they all reached the server; only then
        // is the value read below the last one.
        for client in clients { _ = try await client.get("race.value") }
        let final = try await clients[0].get("race.value")
        let finalValue = try final.value.decode(Int.self)
        let converged = await eventually {
            mirrors.allSatisfy { $0.value == finalValue }
                && clients.allSatisfy { $0.version(ofKey: "race.value") == final.version }
        }
        for watcher in watchers { watcher.cancel() }
        let versions = clients.map { $0.version(ofKey: "race.value") ?? -1 }
        #expect(
            converged, "mirrors \(mirrors.map(\.value)) versions \(versions), server \(finalValue) v\(final.version)")
        #expect(versionWentBack.isRaised == false)
        for client in clients {
            #expect(try await client.get("race.value").version == final.version)
        }
    }
}
