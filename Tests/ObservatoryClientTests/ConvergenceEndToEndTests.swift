import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConvergenceEndToEndTests {
    /// Twenty runs, since a race between a mirror's deliveries showed in only some of them.
    @Test(arguments: Array(UInt64(1)...20))
    func concurrentWritesFromThreeClientsConvergeAndNoMirrorDeliversAnOlderVersion(seed: UInt64) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var connected: [ObservatoryClient] = []
        for name in ["alice", "bob", "carol", "historian"] { connected.append(try await server.client(name)) }
        let clients = Array(connected.prefix(3))
        let historian = connected[3]
        defer { for client in connected { client.close() } }

        // Every write has a value of its own, so the server's history tells the
        // version each value a mirror delivers was written at.
        let versionsByValue = Locked<[Int: Int64]>([:])
        let authorsByValue = Locked<[Int: String]>([:])
        let history = try await historian.changes(of: .key("race.value"), slow: .close)
        let historyReader = Task {
            for await change in history {
                if let value = try? change.new?.decode(Int.self) {
                    versionsByValue.withLock { $0[value] = change.version }
                    authorsByValue.withLock { $0[value] = change.author.name }
                }
            }
        }
        defer { historyReader.cancel() }

        let mirrors = clients.map { $0.variable("race.value", default: -1) }
        let deliveries = mirrors.map { mirror in
            let recorder = Recorder<Update<Int>>()
            recorder.record(mirror)
            return recorder
        }
        for client in clients { try await client.waitUntilSynchronized() }

        var generator = SeededGenerator(seed: seed)
        let plans: [[(value: Int, viaMirror: Bool, pause: Int)]] = (0..<3).map { writer in
            (0..<40).map { step in
                (writer * 1000 + step, Bool.random(using: &generator), Int.random(in: 0..<3, using: &generator))
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
        let versions = clients.map { $0.version(ofKey: "race.value") ?? -1 }
        #expect(
            converged, "mirrors \(mirrors.map(\.value)) versions \(versions), server \(finalValue) v\(final.version)")
        let historyComplete = await eventually { versionsByValue.withLock { $0[finalValue] } == final.version }
        #expect(historyComplete)
        for client in clients {
            await client.waitUntilDelivered()
            #expect(try await client.get("race.value").version == final.version)
        }

        let known = versionsByValue.withLock { $0 }
        let writers = authorsByValue.withLock { $0 }
        for (index, recorder) in deliveries.enumerated() {
            // The mirror's own updates carry a session's `Author`; the others are local writes.
            let delivered = zip(recorder.messages, recorder.remoteAuthors).compactMap { update, author in
                author.map { (value: update.new, author: $0.name) }
            }
            let misattributed = delivered.first { writers[$0.value] != $0.author }
            #expect(misattributed == nil, "mirror \(index) showed a value by someone who did not write it")
            let versions = delivered.map { known[$0.value] }
            #expect(!versions.contains(nil), "mirror \(index) delivered a value nobody wrote")
            let deliveredVersions = versions.compactMap { $0 }
            let wentBack = zip(deliveredVersions, deliveredVersions.dropFirst()).first { $0.1 < $0.0 }
            #expect(wentBack == nil, "mirror \(index) delivered v\(wentBack?.0 ?? 0), then v\(wentBack?.1 ?? 0)")
        }
    }
}
