import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct InputBudgetTests {
    private final class Owner: Sendable {}

    @Test func overTheCapTheLargestHoldersPauseAndResumeOnceItDrains() {
        let budget = InputBudget(limit: 1_000)
        let (large, small, other) = (Owner(), Owner(), Owner())
        let resumed = Locked<[String]>([])
        #expect(
            budget.record(ObjectIdentifier(small), holding: 100) { resumed.withLock { $0.append("small") } } == .freely)
        #expect(
            budget.record(ObjectIdentifier(other), holding: 200) { resumed.withLock { $0.append("other") } } == .freely)
        // 1,300 held: the largest holder stops (the others still read); the small ones go
        // on, up to the size past which a frame's buffer grows to a whole frame's.
        #expect(
            budget.record(ObjectIdentifier(large), holding: 1_000) { resumed.withLock { $0.append("large") } }
                == .paused)
        #expect(
            budget.record(ObjectIdentifier(small), holding: 150) { resumed.withLock { $0.append("small") } }
                == .atMost(InputBudget.largeFrameBytes - 150))
        #expect(budget.total == 1_350)
        #expect(resumed.withLock { $0 }.isEmpty)
        budget.remove(ObjectIdentifier(other))
        #expect(resumed.withLock { $0 }.isEmpty, "still 1,150 held")
        #expect(budget.record(ObjectIdentifier(small), holding: 0) {} == .freely)
        #expect(resumed.withLock { $0 } == ["large"])
        #expect(budget.total == 1_000)
    }

    @Test func manyClientsSendingLargeLinesSlowlyStayWithinTheCapAndOthersAreServed() throws {
        let server = try TestServer { $0.limits.maxBufferedInputBytes = 2 << 20 }
        let hogs = try (0..<10).map { _ in try server.client() }
        let partial = Array((#"{"op":"ping","pad":""# + String(repeating: "h", count: 900_000)).utf8)
        for hog in hogs { try hog.sendBytes(partial) }
        let bystander = try server.client()
        for index in 0..<20 {
            #expect(try bystander.request(#"{"op":"ping","id":\#(index)}"#)["id"] == .integer(Int64(index)))
        }
        // Counted as allocated: a line past 64 KiB takes a buffer for a whole frame
        // (1 MiB + 64 KiB). Each connection may overshoot by one read (64 KiB)
        // before it is paused, and each of the two loops by one such buffer.
        let budget = server.server.inputBudget
        let frameBuffer = (1 << 20) + 65_536
        #expect(budget.total <= (2 << 20) + 2 * frameBuffer + 10 * 65_536, "\(budget.total) bytes held")
        #expect(budget.total < 9_000_000)
        // Hogs that finish their lines are answered, one after another, as each
        // finished line frees room for the next.
        for (index, hog) in hogs.enumerated() {
            try hog.sendBytes(Array(#"","id":\#(index)}"#.utf8) + [10])
        }
        for (index, hog) in hogs.enumerated() {
            #expect(try hog.next()["id"] == .integer(Int64(index)))
        }
        // A connection reports its empty buffer just after it sent its reply.
        let deadline = Date().addingTimeInterval(20)
        while budget.total > 0 && Date() < deadline { _ = try bystander.request(#"{"op":"ping"}"#) }
        #expect(budget.total == 0)
    }

    /// Ten clients first send a small part of a large line, then the rest. Over the cap,
    /// a small holder goes on reading (its request may be small), but only up to the
    /// size past which its buffer would grow to a whole frame's; reading on, it would
    /// take that buffer before the budget could pause it, ten of them together.
    @Test func smallHoldersOverTheCapDoNotGrowToWholeFrameBuffersBeforeTheyArePaused() throws {
        let server = try TestServer { $0.limits.maxBufferedInputBytes = 2 << 20 }
        let hogs = try (0..<10).map { _ in try server.client() }
        let budget = server.server.inputBudget
        let start = Array((#"{"op":"ping","pad":""# + String(repeating: "s", count: 30_000)).utf8)
        for hog in hogs { try hog.sendBytes(start) }
        try waitUntil("every connection holds its first part") { budget.total >= 10 * 30_000 }
        let rest = Array(String(repeating: "r", count: 870_000).utf8)
        for hog in hogs { try hog.sendBytes(rest) }
        let bystander = try server.client()
        for index in 0..<5 {
            #expect(try bystander.request(#"{"op":"ping","id":\#(index)}"#)["id"] == .integer(Int64(index)))
        }
        let frameBuffer = (1 << 20) + 65_536
        #expect(budget.total <= (2 << 20) + 2 * frameBuffer + 10 * 131_072, "\(budget.total) bytes held")
        for (index, hog) in hogs.enumerated() {
            try hog.sendBytes(Array(#"","id":\#(index)}"#.utf8) + [10])
        }
        for (index, hog) in hogs.enumerated() {
            #expect(try hog.next()["id"] == .integer(Int64(index)))
        }
    }

    @Test func oneHolderIsAlwaysLeftReading() {
        let budget = InputBudget(limit: 100)
        let owners = (0..<3).map { _ in Owner() }
        let paused = owners.map { budget.record(ObjectIdentifier($0), holding: 80_000) {} }
        #expect(paused == [.freely, .paused, .paused])
        budget.remove(ObjectIdentifier(owners[0]))
        #expect(budget.record(ObjectIdentifier(owners[1]), holding: 90_000) {} == .freely, "the last one reading")
    }
}
