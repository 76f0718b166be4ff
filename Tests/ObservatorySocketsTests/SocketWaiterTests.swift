import Dispatch
import Testing

@testable import ObservatorySockets

/// The client's `poll(2)` waiter: wake-ups from other threads, readiness and timeouts.
@Suite(.timeLimit(.minutes(1))) struct SocketWaiterTests {
    private func send(_ text: String, on socket: StreamSocket) throws {
        try socket.sendAll(Array(text.utf8), timeoutMilliseconds: 1_000)
    }

    @Test func aWakeFromAnotherThreadEndsALongWaitAndIsReported() throws {
        let waiter = try SocketWaiter()
        let start = ContinuousClock.now
        DispatchQueue.global().async { waiter.wake() }
        let outcome = try waiter.wait(for: [], timeoutMilliseconds: 20_000)
        #expect(outcome.woken)
        #expect(outcome.ready.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func wakeUpsBeforeAWaitEndThatWaitOnly() throws {
        let waiter = try SocketWaiter()
        for _ in 0..<3 { waiter.wake() }
        #expect(try waiter.wait(for: [], timeoutMilliseconds: 1_000).woken)
        let next = try waiter.wait(for: [], timeoutMilliseconds: 20)
        #expect(!next.woken, "the wake-ups were consumed by the first wait")
    }

    @Test func manyWakeUpsNeverBlockTheWaker() throws {
        let waiter = try SocketWaiter()
        // More than a pipe holds: the extra wake-ups are dropped, not waited on.
        for _ in 0..<200_000 { waiter.wake() }
        #expect(try waiter.wait(for: [], timeoutMilliseconds: 1_000).woken)
        #expect(!(try waiter.wait(for: [], timeoutMilliseconds: 0).woken))
    }

    @Test func aWaitWithNothingReadyEndsAtItsTimeout() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let waiter = try SocketWaiter()
        let start = ContinuousClock.now
        let outcome = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 50)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(outcome == SocketWaiter.Outcome(woken: false, ready: []))
    }

    @Test func aSocketWithBytesToReadIsReportedReadable() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let waiter = try SocketWaiter()
        try send("hello\n", on: pair.accepted)
        let outcome = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
        let readiness = try #require(outcome.ready.first)
        #expect(outcome.ready.count == 1)
        #expect(readiness.descriptor == pair.client.descriptor)
        #expect(readiness.readable && !readiness.writable && !readiness.hungUp)
        #expect(!outcome.woken)
    }

    @Test func onlyTheReadySocketOfSeveralIsReported() throws {
        let first = try LoopbackPair()
        let second = try LoopbackPair()
        defer {
            first.close()
            second.close()
        }
        let waiter = try SocketWaiter()
        try send("x", on: second.accepted)
        let outcome = try waiter.wait(
            for: [
                SocketWaiter.Watch(first.client.descriptor, for: .readable),
                SocketWaiter.Watch(second.client.descriptor, for: .readable),
            ], timeoutMilliseconds: 5_000)
        #expect(outcome.ready.map(\.descriptor) == [second.client.descriptor])
    }

    @Test func writabilityIsReportedOnlyWhenWatchedFor() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let waiter = try SocketWaiter()
        let readOnly = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 0)
        #expect(readOnly.ready.isEmpty)
        let both = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: [.readable, .writable])], timeoutMilliseconds: 0)
        #expect(both.ready.map(\.writable) == [true])
        #expect(both.ready.map(\.readable) == [false])
    }

    @Test func aPeerThatClosedMakesTheSocketReadableAtEndOfFile() throws {
        let pair = try LoopbackPair()
        defer { pair.client.close() }
        let waiter = try SocketWaiter()
        pair.accepted.close()
        let outcome = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
        #expect(outcome.ready.map(\.readable) == [true])
        var buffer = [UInt8](repeating: 0, count: 16)
        let received = try buffer.withUnsafeMutableBytes { try pair.client.receive(into: $0) }
        #expect(received == .closed)
    }

    @Test func aWakeUpAndAReadySocketAreReportedTogether() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let waiter = try SocketWaiter()
        try send("x", on: pair.accepted)
        waiter.wake()
        // The byte may still be on its way: wait for it after the wake-up was taken.
        var outcome = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
        #expect(outcome.woken)
        if outcome.ready.isEmpty {
            outcome = try waiter.wait(
                for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
        }
        #expect(outcome.ready.map(\.readable) == [true])
    }
}
