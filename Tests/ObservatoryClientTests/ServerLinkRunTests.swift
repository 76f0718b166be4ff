import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// The link tells the client when the socket paused and whether the bytes
/// read ended inside a frame, so that the client's machine knows when a run of
/// events may go on (``EventRun``).
@Suite struct ServerLinkRunTests {
    /// A link without a socket, fed bytes by the test; returns it and what it reported, in order.
    private func link() -> (ServerLink, Locked<[String]>) {
        let journal = Locked<[String]>([])
        let link = ServerLink(
            wake: {}, generation: 1,
            onReply: { _, _ in journal.withLock { $0.append("reply") } },
            onEvent: { event, _ in
                let key = String(decoding: event.encoded(), as: UTF8.self).contains(#""key":"a""#) ? "a" : "b"
                journal.withLock { $0.append("event \(key)") }
            },
            onReadEnd: { midFrame, _ in journal.withLock { $0.append(midFrame ? "read ended mid-frame" : "read ended") }
            },
            onEnd: { _, _ in journal.withLock { $0.append("end") } })
        return (link, journal)
    }

    private let run = Array(
        (#"{"event":"update","key":"a","new":1,"version":5,"author":"bob","session":"s2"}"# + "\n"
            + #"{"event":"update","key":"b","new":2,"version":5,"author":"bob","session":"s2"}"# + "\n").utf8)

    @Test func aPauseInsideAFrameSaysSoAndTheRestFollowsInTheNextRead() {
        let (link, journal) = link()
        let split = run.count - 20

        link.receive(Array(run[..<split]))
        link.readPaused()
        #expect(journal.value == ["event a", "read ended mid-frame"])
        link.receive(Array(run[split...]))
        link.readPaused()

        #expect(journal.value == ["event a", "read ended mid-frame", "event b", "read ended"])
    }

    @Test func readsThatFollowEachOtherWithoutAPauseSayNothingInBetween() {
        let (link, journal) = link()
        let boundary = run.firstIndex(of: 10).map { $0 + 1 } ?? 0

        link.receive(Array(run[..<boundary]))
        link.receive(Array(run[boundary...]))
        #expect(journal.value == ["event a", "event b"], "more bytes were waiting: no pause at the frame's end")
        link.readPaused()

        #expect(journal.value == ["event a", "event b", "read ended"])
    }

    @Test func aFrameThatEndsTheLinkEndsTheReadBeforeIt() {
        let (link, journal) = link()
        let rejection =
            Array(
                #"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"behind","revision":5}}"#.utf8) + [10]
        link.receive(run + rejection)
        #expect(journal.value == ["event a", "event b", "read ended"])
        #expect(link.endReason == .slowConsumer(revision: 5))
    }
}
