import ObservatoryCommandLine
import ObservatoryWire
import Testing

@testable import ObservatoryClient

@Suite struct ChangeFormatterTests {
    private let alice = Author(name: "alice", session: "s3")

    private func change(_ event: Event) -> RemoteChange {
        switch event {
        case .update(let key, let old, let new, let version, _, _, _, _):
            RemoteChange(key: key, old: old, new: new, version: version, author: alice, event: event)
        case .delete(let key, let old, let version, _, _, _):
            RemoteChange(key: key, old: old, new: nil, version: version, author: alice, event: event)
        case .shutdown:
            RemoteChange(key: "", old: nil, new: nil, version: 0, author: alice, event: event)
        }
    }

    @Test func updateShowsOldArrowNewAuthorAndVersion() {
        let line = ChangeFormatter.line(
            for: change(.update(key: "sky.color", old: "blue", new: "red", version: 12, author: "alice", session: "s3"))
        )
        #expect(line == #"sky.color "blue" → "red" by alice (v12)"#)
    }

    @Test func createdKeyHasNoOldValue() {
        let line = ChangeFormatter.line(
            for: change(.update(key: "n", old: nil, new: ["a": [1, 2.5]], version: 1, author: "alice", session: "s3")))
        #expect(line == #"n (none) → {"a":[1,2.5]} by alice (v1)"#)
    }

    @Test func deletedKeyHasNoNewValue() {
        let line = ChangeFormatter.line(
            for: change(.delete(key: "n", old: true, version: 2, author: "alice", session: "s3")))
        #expect(line == "n true → (deleted) by alice (v2)")
    }

    @Test func aKeyDeletedBecauseItsSessionEndedSaysSo() {
        let event = Event.delete(
            key: "presence.bob", old: true, version: 9, author: "alice", session: "s3", reason: "session_ended")
        #expect(ChangeFormatter.line(for: change(event)) == "presence.bob true → (session ended) by alice (v9)")
    }

    @Test func aKeyDeletedBecauseItExpiredSaysSo() {
        let event = Event.delete(key: "door", old: true, version: 4, author: "alice", session: "s3", reason: "expired")
        #expect(ChangeFormatter.line(for: change(event)) == "door true → (expired) by alice (v4)")
    }
}
