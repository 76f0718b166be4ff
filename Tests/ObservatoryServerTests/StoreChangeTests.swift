import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct StoreChangeTests {
    private let alice = Author(name: "alice", session: "s1")
    private let bob = Author(name: "bob", session: "s2")

    private func expectFrame(of change: StoreChange, is event: RawEvent) {
        #expect(change.frame == event.encoded() + [10])
        #expect(change.event == event)
    }

    @Test func coalescedFramesAreSplicedExactlyAsIfEncoded() {
        let large = EncodedJSON(["rgb": [0, 0.5, 1], "name": "crème", "list": .array((0..<50).map { .integer($0) })])
        let created = StoreChange.update(key: "k", old: nil, new: "a", version: 1, by: alice)
        let changed = StoreChange.update(key: "k", old: "a", new: large, version: 2, by: bob)
        let changedAgain = StoreChange.update(key: "k", old: large, new: "c", version: 3, by: alice)
        let deleted = StoreChange.delete(key: "k", old: "c", version: 4, by: bob)
        let cases: [(StoreChange, StoreChange, RawEvent)] = [
            (changed, changedAgain, .update(key: "k", old: "a", new: "c", version: 3, author: "alice", session: "s1")),
            (created, changedAgain, .update(key: "k", old: nil, new: "c", version: 3, author: "alice", session: "s1")),
            (changed, deleted, .delete(key: "k", old: "a", version: 4, author: "bob", session: "s2")),
            (created, deleted, .delete(key: "k", old: "c", version: 4, author: "bob", session: "s2")),
            (changedAgain, deleted, .delete(key: "k", old: large, version: 4, author: "bob", session: "s2")),
        ]
        for (first, later, expected) in cases {
            let merged = first.coalesced(with: later)
            expectFrame(of: merged, is: expected)
            #expect(StoreChange.coalescedByteCount(first, later) == merged.frame.count)
            // Merged changes merge again, still by splicing.
            let again = merged.coalesced(with: deleted)
            #expect(again.frame == first.coalesced(with: deleted).frame)
        }
    }
}
