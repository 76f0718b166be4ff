import Dispatch
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// A presence's rules, fed changes by hand: no server, no task.
@Suite struct PresenceTests {
    private let queue = DispatchQueue(label: "test.presence")

    private func change(_ name: String, here: Bool, version: Int64, by author: Author) -> RemoteChange {
        let key = "lobby." + name
        let event: Event =
            here
            ? .update(key: key, old: nil, new: true, version: version, author: author.name, session: author.session)
            : .delete(key: key, old: true, version: version, author: author.name, session: author.session)
        return RemoteChange(
            key: key, old: here ? nil : true, new: here ? true : nil, version: version, author: author, event: event)
    }

    /// Waits until every block queued on the delivery queue so far has run.
    private func drain() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    @Test func changesBeforeTheFirstListAreShownOnlyWhenNewerThanIt() async {
        let presence = Presence(prefix: "lobby.", name: "me", deliveryQueue: queue)
        let bob = Author(name: "bob", session: "s2")
        let carol = Author(name: "carol", session: "s3")
        presence.take(change("bob", here: true, version: 5, by: bob))
        presence.take(change("carol", here: true, version: 9, by: carol))
        presence.listed(["me": 7, "bob": 5])
        await drain()
        #expect(presence.members.value == ["me", "bob", "carol"])
    }

    @Test func aLeaveAfterTheListIsShownAndAuthoredByWhoLeft() async {
        let presence = Presence(prefix: "lobby.", name: "me", deliveryQueue: queue)
        let bob = Author(name: "bob", session: "s2")
        presence.listed(["me": 7, "bob": 5])
        let seen = Recorder<Update<Set<String>>>()
        seen.record(presence.members)
        presence.take(change("bob", here: false, version: 10, by: bob))
        presence.take(change("bob", here: true, version: 8, by: bob))
        await drain()
        #expect(seen.messages.map(\.new) == [["me"]], "the older join is not shown")
        #expect(seen.remoteAuthors.first??.name == "bob")
    }

    @Test func aStoppedPresenceTakesNoMoreChangesAndNamesItsWatcher() async {
        let presence = Presence(prefix: "lobby.", name: "me", deliveryQueue: queue)
        presence.fed(by: 42)
        presence.listed(["me": 7])
        #expect(presence.stop() == 42)
        presence.take(change("dave", here: true, version: 11, by: Author(name: "dave", session: "s4")))
        await drain()
        #expect(presence.members.value == ["me"])
    }
}
