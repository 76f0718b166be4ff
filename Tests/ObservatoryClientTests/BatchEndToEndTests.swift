import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// The client's batch call against a real server: typed steps in, the revision
/// and typed results out, a failing step as a typed error with its index.
@Suite(.timeLimit(.minutes(1))) struct BatchEndToEndTests {
    private struct Job: Codable, Equatable {
        var state: String
        var pages: Int
    }

    @Test func aBatchAppliesEveryStepAtOneRevisionAndReturnsEachResult() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let lock = try await alice.set("lock.printer", "alice")
        let owner = try await alice.set("printer.owner", "alice")

        let outcome = try await alice.batch([
            .check("lock.printer", ifVersion: lock.version),
            .set("job.7", Job(state: "printing", pages: 3)),
            .set("printer.owner", "alice"),
        ])

        #expect(outcome.revision > owner.version)
        #expect(outcome.results.map(\.key) == ["lock.printer", "job.7", "printer.owner"])
        #expect(outcome.results.map(\.version) == [lock.version, outcome.revision, owner.version])
        #expect(outcome.results.map(\.changed) == [nil, true, false])
        #expect(try await alice.get("job.7", as: Job.self) == Job(state: "printing", pages: 3))
    }

    @Test func aFailingStepThrowsItsCodeAndIndexAndNothingIsApplied() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let queued = try await alice.set("queue.7", true)

        do {
            try await alice.batch([
                .set("job.7.state", "printing"),
                .delete("queue.7", ifVersion: queued.version + 1),
            ])
            Issue.record("a batch with a wrong ifVersion was applied")
        } catch {
            #expect(error.serverError?.code == .conflict)
            #expect(error.operationIndex == 1)
            #expect(error.currentVersion == queued.version)
            #expect(error.message.contains("batch operation 1"), "\(error.message)")
        }
        await #expect(throws: ClientError.self) { try await alice.get("job.7.state") }
        #expect(try await alice.get("queue.7", as: Bool.self) == true)
    }

    @Test func aDeleteOfAMissingKeyIsNotFoundWithItsIndex() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }

        let error = await #expect(throws: ClientError.self) {
            try await alice.batch([.set("a", 1), .check("b", ifVersion: 0), .delete("c")])
        }

        #expect(error?.serverError?.code == .notFound)
        #expect(error?.operationIndex == 2)
    }

    @Test func aValueThatCannotBeEncodedThrowsBeforeAnythingIsSent() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }

        let error = await #expect(throws: ClientError.self) {
            try await alice.batch([.set("a", 1), .set("b", Double.nan)])
        }

        #expect(error?.code == .unencodableValue)
        #expect(error?.key == "b")
        await #expect(throws: ClientError.self) { try await alice.get("a") }
    }

    @Test func mirrorsOfTwoKeysTakeABatchAsOneStep() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let bob = try await server.client("bob")
        defer { bob.close() }
        let from = alice.variable("account.from", default: 100)
        let to = alice.variable("account.to", default: 0)
        try await alice.waitUntilSynchronized()
        let sums = Locked<[Int]>([])
        let observer = FreeObserver()
        observer.observe(from) { (update: Update<Int>) in sums.withLock { $0.append(update.new + to.value) } }
        observer.observe(to) { (update: Update<Int>) in sums.withLock { $0.append(from.value + update.new) } }

        try await bob.batch([.set("account.from", 70), .set("account.to", 30)])
        try await bob.batch([.set("account.from", 40), .set("account.to", 60)])

        #expect(await eventually { sums.value.count == 4 }, "\(sums.value)")
        #expect(sums.value == [100, 100, 100, 100], "an observer never sees half a transfer")
    }
}
