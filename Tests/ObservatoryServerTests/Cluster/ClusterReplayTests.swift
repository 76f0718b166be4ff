import Observatory
import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class LiveObserver: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
}

/// A replay rebuilds from etcd's events what a node's cache sent live, for one
/// target, up to where the observation started, within its caps; without etcd.
@Suite struct ClusterReplayTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")
    private let bob = Author(name: "bob", session: "sb.1")

    /// `sky.color` red at 5; after 10: bob's blue (11), a noise key (12), alice's
    /// delete with its marker (13), a session-bound key (14) that goes with its lease (15).
    private let baseline = [RawValueEntry(key: "sky.color", value: "red", version: 5, author: "alice", session: "sa.1")]
    private var events: [EtcdWatchEvent] {
        [
            EtcdWatchEvent.put("obs/k/sky.color", ClusterEnvelope(value: "blue", author: bob), revision: 11),
            EtcdWatchEvent.put("obs/k/noise", ClusterEnvelope(value: 1, author: bob), revision: 12),
            EtcdWatchEvent.put("obs/d/sky.color", ClusterEnvelope(value: nil, author: alice), revision: 13),
            EtcdWatchEvent.delete("obs/k/sky.color", revision: 13),
            EtcdWatchEvent.put(
                "obs/k/sky.here", ClusterEnvelope(value: true, author: alice, sessionBound: true), revision: 14),
            EtcdWatchEvent.delete("obs/k/sky.here", revision: 15),
        ]
    }

    private func replay(
        _ target: Target = .prefix("sky."), through end: Int64 = 15, maximumChanges: Int = 100,
        maximumBytes: Int = 1 << 20
    ) -> ClusterReplay {
        ClusterReplay(
            target: target, baseline: baseline, after: 10, through: end, layout: layout,
            maximumChanges: maximumChanges, maximumBytes: maximumBytes)
    }

    @Test func theReplayHasTheTargetsEventsWithTheBytesTheCacheSentLive() throws {
        let cache = SharedStore(replicating: baseline, at: 10, epoch: "e", historyChanges: 100)
        let observer = LiveObserver()
        _ = cache.observe(.prefix("sky."), by: observer, subscribe: true) { observer.changes.append($0) }
        cache.replicate(ClusterEventMapper.changes(from: events, layout: layout), through: 15)
        let live = observer.changes.filter { $0.key.hasPrefix("sky.") }

        var replay = replay()
        guard case .finished(let changes) = replay.receive(events) else {
            Issue.record("the replay did not finish at its end revision")
            return
        }
        #expect(changes.map(\.version) == [11, 13, 14, 15])
        #expect(changes.map(\.frame) == live.map(\.frame))
        #expect(
            String(decoding: try #require(changes.last).frame, as: UTF8.self).contains(#""reason":"session_ended""#))
    }

    @Test func aKeyTargetKeepsOnlyThatKey() {
        var replay = replay(.key("sky.here"))
        guard case .finished(let changes) = replay.receive(events) else {
            Issue.record("the replay did not finish")
            return
        }
        #expect(changes.map(\.key) == ["sky.here", "sky.here"])
    }

    @Test func itNeedsMoreUntilTheEndRevisionAndLeavesLaterEventsToTheLiveOnes() {
        var replay = replay(through: 14)
        #expect(replay.receive(Array(events.prefix(2))) == .needsMore)
        guard case .finished(let changes) = replay.receive(Array(events.dropFirst(2))) else {
            Issue.record("the replay did not finish once past its end")
            return
        }
        #expect(changes.map(\.version) == [11, 13, 14], "15 is after the observation started: a live event")
    }

    @Test func aProgressReportAtTheEndFinishesWithoutAnEventThere() {
        var replay = replay(through: 20)
        #expect(replay.receive(events) == .needsMore)
        #expect(replay.progressed(to: 19) == .needsMore)
        guard case .finished(let changes) = replay.progressed(to: 20) else {
            Issue.record("the replay did not finish at the progress report")
            return
        }
        #expect(changes.count == 4)
    }

    @Test func moreChangesThanTheCapGiveUp() {
        var replay = replay(maximumChanges: 3)
        #expect(replay.receive(events) == .overLimit)
        #expect(replay.progressed(to: 15) == .overLimit, "it stays given up")
    }

    @Test func moreBytesThanTheCapGiveUp() {
        var replay = replay(maximumBytes: 200)
        #expect(replay.receive(events) == .overLimit)
    }
}
