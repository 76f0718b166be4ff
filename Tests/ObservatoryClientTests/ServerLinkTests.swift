import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

@Suite(.timeLimit(.minutes(1))) struct ServerLinkTests {
    /// What the link reported.
    final class Journal: Sendable {
        let events = Locked<[Event]>([])
        let endReasons = Locked<[DisconnectReason]>([])
        let replies = Locked<[ReceivedReply]>([])
        /// Replies and events, as `reply <id>` and `event <version>`, in the order handed over.
        let order = Locked<[String]>([])
    }

    /// A link on a fresh connection to `peer`, served by an event loop on a thread of its own.
    private func openLink(_ peer: LoopbackPeer, journal: Journal, maxFrameBytes: Int = 64 << 20) async throws
        -> ServerLink
    {
        let loop = try ClientEventLoop()
        let socket = try SocketConnection.connect(host: "127.0.0.1", port: peer.port, timeout: .seconds(2))
        let link = ServerLink(
            wake: { loop.wake() },
            generation: 1,
            maxFrameBytes: maxFrameBytes,
            onReply: { reply, _ in
                journal.replies.withLock { $0.append(reply) }
                if case .integer(let identifier)? = reply.id {
                    journal.order.withLock { $0.append("reply \(identifier)") }
                }
            },
            onEvent: { event, _ in
                journal.events.withLock { $0.append(event) }
                journal.order.withLock { $0.append("event \(event.version)") }
            },
            onEnd: { reason, _ in journal.endReasons.withLock { $0.append(reason) } }
        )
        let thread = Thread { loop.run(link, on: socket, sendTimeout: .seconds(2)) { .milliseconds(100) } }
        thread.start()
        try await peer.accept()
        return link
    }

    @Test func repliesAndEventsAreHandedOverInTheOrderTheyCame() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        defer { link.end(.closed) }
        link.write(Request(id: .integer(1), operation: .get(key: "a")))
        link.write(Request(id: .integer(2), operation: .get(key: "b")))
        #expect(await peer.receiveLine() == #"{"id":1,"op":"get","key":"a"}"#)
        #expect(await peer.receiveLine() == #"{"id":2,"op":"get","key":"b"}"#)
        peer.send(#"{"event":"update","key":"a","new":1,"version":3,"author":"x","session":"s9"}"# + "\n")
        peer.send(#"{"ok":false,"id":2,"error":{"code":"not_found","message":"no b"}}"# + "\n")
        peer.send(#"{"event":"delete","key":"a","old":1,"version":4,"author":"x","session":"s9"}"# + "\n")
        peer.send(#"{"ok":true,"id":1,"key":"a","value":1,"version":3,"author":"x","session":"s9"}"# + "\n")
        #expect(await eventually { journal.order.withLock { $0.count } == 4 })
        #expect(journal.order.withLock { $0 } == ["event 3", "reply 2", "event 4", "reply 1"])
        let replyA = try #require(journal.replies.withLock { $0.last })
        #expect(
            try replyA.payload(for: .get)
                == .get(ValueEntry(key: "a", value: 1, version: 3, author: "x", session: "s9")))
        let replyB = try #require(journal.replies.withLock { $0.first })
        #expect(replyB.outcome.isFailure)
    }

    @Test func aLinkThatEndedWritesNothingMore() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        peer.closeConnection()
        #expect(await link.waitUntilEnded() == .closedByServer)
        #expect(journal.endReasons.withLock { $0 } == [.closedByServer])
        let written = link.write(Request(id: .integer(1), operation: .ping))
        #expect(!written)
    }

    @Test func shutdownEventEndsTheLink() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        peer.send(#"{"event":"shutdown"}"# + "\n")
        #expect(await link.waitUntilEnded() == .serverShutdown)
        let noEventsDelivered = journal.events.withLock { $0.isEmpty }
        #expect(noEventsDelivered)
    }

    @Test func shuttingDownReplyAnswersTheRequestAndEndsTheLink() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        link.write(Request(id: .integer(1), operation: .get(key: "a")))
        _ = await peer.receiveLine()
        peer.send(#"{"ok":false,"id":1,"error":{"code":"shutting_down","message":"bye"}}"# + "\n")
        #expect(await link.waitUntilEnded() == .serverShutdown)
        let reply = try #require(journal.replies.withLock { $0.first })
        #expect(reply.outcome == .failure(WireError(code: .shuttingDown, message: "bye")))
    }

    @Test func frameOverTheLimitEndsTheLinkAsAProtocolError() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal, maxFrameBytes: 64)
        peer.send(#"{"event":"update","key":"k","new":""# + String(repeating: "x", count: 100) + "\"}\n")
        guard case .protocolError(let detail) = await link.waitUntilEnded() else {
            Issue.record("expected a protocol error")
            return
        }
        #expect(detail.contains("too long"))
        let noEventsDelivered = journal.events.withLock { $0.isEmpty }
        #expect(noEventsDelivered)
    }

    @Test func errorWithoutRequestIdEndsTheLinkAsARejection() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        peer.send(#"{"ok":false,"id":null,"error":{"code":"frame_too_large","message":"too long"}}"# + "\n")
        #expect(await link.waitUntilEnded() == .rejected("frame_too_large: too long"))
    }

    @Test func aSlowConsumerErrorEndsTheLinkWithItsRevisionAfterTheEventsAheadOfIt() async throws {
        let peer = try LoopbackPeer()
        let journal = Journal()
        let link = try await openLink(peer, journal: journal)
        peer.send(
            #"{"event":"update","key":"k","new":1,"version":4,"author":"a","session":"s1"}"# + "\n"
                + #"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"slow","revision":4}}"# + "\n")
        #expect(await link.waitUntilEnded() == .slowConsumer(revision: 4))
        #expect(journal.events.withLock { $0.map(\.version) } == [4])
    }
}

extension Event {
    /// The version of an update or delete (0 for shutdown), for assertions.
    var version: Int64 {
        switch self {
        case .update(_, _, _, let version, _, _, _, _), .delete(_, _, let version, _, _, _): version
        case .shutdown: 0
        }
    }
}
