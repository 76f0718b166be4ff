import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// What the offline store keeps of a mirror's rules, and where a restored mirror starts.
@Suite struct MirrorStateOfflineTests {
    typealias State = MirrorState<Int, String>

    private func named(_ author: String) -> (name: String, session: String)? {
        author == "client" ? nil : (author, "s-\(author)")
    }

    private func synchronized() -> State {
        var state = State(defaultValue: 0)
        _ = state.tookSnapshot(.value(5), version: 3, author: "alice", resyncAuthor: "client", generation: 1)
        return state
    }

    @Test func aQuietMirrorKeepsTheServerValueWithItsAuthorAndNoWrite() throws {
        let entry = try #require(
            synchronized().offlineEntry(key: "k", resumePoint: ResumePoint(revision: 8, epoch: "e"), authorOf: named))
        #expect(entry.value == 5)
        #expect(entry.version == 3)
        #expect(entry.authorName == "alice")
        #expect(entry.authorSession == "s-alice")
        #expect(entry.revision == 8)
        #expect(entry.epoch == "e")
        #expect(entry.write == nil)
    }

    @Test func anUnacknowledgedWriteIsKeptWithItsRequestIdUntilAcknowledged() throws {
        var state = synchronized()
        state.wroteLocally(42, requestId: "r1")
        let unsent = try #require(state.offlineEntry(key: "k", resumePoint: nil, authorOf: named))
        #expect(unsent.write == OfflineEntry.Write(value: 42, requestId: "r1", basedOn: 3))
        #expect(state.beginSend { "other" } == "r1", "the write is sent under the id it was kept with")
        let inFlight = try #require(state.offlineEntry(key: "k", resumePoint: nil, authorOf: named))
        #expect(inFlight.write?.requestId == "r1")
        _ = state.writeReplied(.acknowledged(version: 4), value: 42, author: "me")
        let acknowledged = try #require(state.offlineEntry(key: "k", resumePoint: nil, authorOf: named))
        #expect(acknowledged.write == nil)
        #expect(acknowledged.value == 42)
        #expect(acknowledged.version == 4)
    }

    @Test func aMirrorWithoutSnapshotOrWriteKeepsNothing() {
        #expect(State(defaultValue: 0).offlineEntry(key: "k", resumePoint: nil, authorOf: named) == nil)
    }

    @Test func aRestoredMirrorShowsTheKeptValueAndCanResume() throws {
        let entry = try #require(synchronized().offlineEntry(key: "k", resumePoint: nil, authorOf: named))
        var state = State(defaultValue: 0)
        state.restore(entry) { name, session in "\(name ?? "?")/\(session ?? "?")" }
        #expect(state.hasSnapshot)
        #expect(state.version == 3)
        #expect(state.shown()?.value == 5)
        #expect(state.shown()?.author == "alice/s-alice")
        state.resumed(generation: 1)
        let replayed = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(replayed?.show?.value == 6)
    }

    @Test func aRestoredWriteIsUnsentAndKeepsItsRequestIdAndShowsItsValue() throws {
        var written = synchronized()
        written.wroteLocally(42, requestId: "r1")
        let entry = try #require(written.offlineEntry(key: "k", resumePoint: nil, authorOf: named))
        var state = State(defaultValue: 0)
        state.restore(entry) { name, _ in name ?? "client" }
        #expect(state.hasUnsentWrite)
        #expect(state.localValue == 42)
        #expect(state.shown() == nil, "the local value stays until the write is acknowledged")
        #expect(state.beginSend { "new" } == "r1")
        #expect(state.basedOn == 3)
    }

    @Test func aKeptValueOfAnotherTypeIsLeftOutSoTheMirrorTakesASnapshot() {
        let entry = OfflineEntry(key: "k", value: "text", version: 3, revision: 3, epoch: "e")
        var state = State(defaultValue: 0)
        state.restore(entry) { name, _ in name ?? "client" }
        #expect(!state.hasSnapshot)
        #expect(state.shown() == nil)
    }
}
