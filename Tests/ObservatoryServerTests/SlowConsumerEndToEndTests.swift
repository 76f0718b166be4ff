import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `"slow":"close"` over real sockets: a client that stops reading is closed with
/// the `revision` up to which it got everything, and resumes from it with no gap.
@Suite(.timeLimit(.minutes(2))) struct SlowConsumerEndToEndTests {
    @Test func aClosedObserverResumesFromTheErrorsRevisionAndMissesNoValue() throws {
        let running = try TestServer { $0.limits.maxQueuedBytes = 64 * 1_024 }
        let slow = try running.client(receiveBufferBytes: 4_096)
        _ = try slow.request(#"{"op":"observe","prefix":"k.","slow":"close"}"#)
        let writer = try running.client()
        let big = String(repeating: "x", count: 4_000)
        // Four keys again and again: coalescing would shrink the backlog to fit, "close" never does.
        var acknowledged: [(version: Int64, key: String, round: Int64)] = []
        let rounds = 2 * (kernelSendBufferCeiling() + 64 * 1_024) / big.count
        for round in 0..<rounds {
            let key = "k.\(round % 4)"
            let reply = try writer.request(#"{"op":"set","key":"\#(key)","value":["\#(big)",\#(round)]}"#)
            let version = try #require(reply["version"]?.integerValue)
            acknowledged.append((version, key, Int64(round)))
        }
        // The slow client reads again: the events ahead of the error, the error, the close.
        let before = try slow.readUntilClosed(timeout: 20)
        let error = try #require(before.last?["error"])
        #expect(error["code"] == "slow_consumer")
        let revision = try #require(error["revision"]?.integerValue)
        #expect(revision < acknowledged.last?.version ?? 0)
        let sent = before.dropLast().filter { $0["version"]?.integerValue ?? .max <= revision }
        let resumer = try running.client()
        let reply = try resumer.request(#"{"op":"observe","prefix":"k.","slow":"close","fromRevision":\#(revision)}"#)
        #expect(reply["resumed"] == true)
        var after: [JSONValue] = []
        let last = acknowledged.last?.version ?? 0
        while after.last?["version"]?.integerValue ?? revision < last {
            after.append(try resumer.next())
        }
        // Every acknowledged change, in order, once, with its value: those up to R before the close, the rest after.
        let seen = (sent + after).map { event in
            (event["version"]?.integerValue ?? 0, event["key"]?.stringValue ?? "", event["new"]?[1]?.integerValue ?? -1)
        }
        #expect(seen.count == acknowledged.count)
        #expect(zip(seen, acknowledged).allSatisfy { $0 == $1 }, "every value, in order, none missing")
    }
}
