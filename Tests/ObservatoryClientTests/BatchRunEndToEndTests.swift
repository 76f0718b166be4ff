import Foundation
import Observation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// A stand-in server sends a batch's events as one run: the client's mirrors
/// apply it as one step, so an observer of one mirror finds the others already changed.
@Suite(.timeLimit(.minutes(1))) struct BatchRunEndToEndTests {
    /// A client mirroring `a` and `b` (integers, 0 by default), in sync with a
    /// stand-in server whose snapshots are empty at revision 4.
    private func synchronizedClient(_ peer: LoopbackPeer) async throws -> (ObservatoryClient, Var<Int>, Var<Int>) {
        var configuration = ClientConfiguration(port: peer.port, name: "probe")
        configuration.reconnects = false
        let client = ObservatoryClient(configuration: configuration)
        let first = client.variable("a", default: 0)
        let second = client.variable("b", default: 0)
        try await peer.accept()
        let hello = try #require(await peer.receiveLine())
        peer.send(
            #"{"ok":true,"id":\#(try requestId(hello)),"server":"fake","protocol":1,"session":"s1","#
                + #""author":"probe","revision":4,"epoch":"e1"}"# + "\n")
        for _ in 0..<2 {
            let observe = try #require(await peer.receiveLine())
            peer.send(#"{"ok":true,"id":\#(try requestId(observe)),"values":[],"revision":4}"# + "\n")
        }
        #expect(await eventually { client.currentState.isConnected }, "\(client.currentState)")
        return (client, first, second)
    }

    private func requestId(_ line: String) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["id"] as? Int)
    }

    private func update(_ key: String, _ value: Int, version: Int) -> String {
        #"{"event":"update","key":"\#(key)","new":\#(value),"version":\#(version),"author":"bob","session":"s2"}"#
            + "\n"
    }

    @Test func anObserverOfOneMirrorFindsTheOtherMirrorsPartOfTheBatchApplied() async throws {
        let peer = try LoopbackPeer()
        let (client, first, second) = try await synchronizedClient(peer)
        defer { client.close() }
        let seen = Locked<[String]>([])
        let observer = FreeObserver()
        observer.observe(first) { (update: Update<Int>) in
            seen.withLock { $0.append("a=\(update.new) b=\(second.value)") }
        }
        observer.observe(second) { (update: Update<Int>) in
            seen.withLock { $0.append("b=\(update.new) a=\(first.value)") }
        }

        peer.send(update("a", 1, version: 5) + update("b", 2, version: 5))

        #expect(await eventually { seen.value.count == 2 }, "\(seen.value)")
        #expect(seen.value == ["a=1 b=2", "b=2 a=1"])
    }

    @Test func aTrackerOfOneMirrorSeesTheOtherAlreadyChanged() async throws {
        let peer = try LoopbackPeer()
        let (client, first, second) = try await synchronizedClient(peer)
        defer { client.close() }
        let seenInOnChange = Locked<Int?>(nil)
        withObservationTracking {
            _ = first.value
        } onChange: {
            seenInOnChange.withLock { $0 = second.value }
        }

        peer.send(update("a", 1, version: 5) + update("b", 2, version: 5))

        #expect(await eventually { seenInOnChange.value != nil })
        #expect(seenInOnChange.value == 2)
    }

    @Test func eventsOfDifferentRevisionsAreAppliedOneAfterTheOther() async throws {
        let peer = try LoopbackPeer()
        let (client, first, second) = try await synchronizedClient(peer)
        defer { client.close() }
        let seen = Locked<[String]>([])
        let observer = FreeObserver()
        observer.observe(first) { (update: Update<Int>) in
            seen.withLock { $0.append("a=\(update.new) b=\(second.value)") }
        }

        peer.send(update("a", 1, version: 5) + update("b", 2, version: 6))

        #expect(await eventually { second.value == 2 })
        #expect(seen.value == ["a=1 b=0"], "a change of another revision is not part of the run")
    }
}
