import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class ChangeRecorder: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
}

/// The server keeps values as the bytes they were sent in: equal values by
/// docs/protocol.md's equality (members in another order, `1` and `1.0`) change nothing,
/// and a value comes back exactly as it was sent, from memory, from storage after a
/// restart, and from a data directory that builds keeping trees wrote.
@Suite(.timeLimit(.minutes(1))) struct ValueBytesTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func value(_ text: String) throws -> EncodedJSON {
        try EncodedJSON(validating: Array(text.utf8))
    }

    /// Sets `first` then `second` on one key with an observer; returns the second
    /// set's reply, the changes observed after the first, and the stored bytes.
    private func setTwice(_ first: String, _ second: String) throws -> (
        reply: ReplyPayload, changes: [StoreChange], stored: String?
    ) {
        let store = SharedStore(maxKeys: 10)
        try store.set("k", to: try value(first), by: alice)
        let recorder = ChangeRecorder()
        _ = store.observe(.key("k"), by: recorder, subscribe: true) { recorder.changes.append($0) }
        let reply = try store.set("k", to: try value(second), by: bob)
        return (reply, recorder.changes, store.get("k")?.value.description)
    }

    @Test func anObjectWithItsMembersInAnotherOrderIsEqualAndChangesNothing() throws {
        let outcome = try setTwice(#"{"b":2,"a":1}"#, #"{"a":1,"b":2}"#)
        #expect(outcome.reply == .set(key: "k", version: 1, changed: false))
        #expect(outcome.changes.isEmpty, "no event")
        #expect(outcome.stored == #"{"b":2,"a":1}"#, "the first bytes stay")
    }

    @Test func oneAndOnePointZeroAreEqualAndChangeNothing() throws {
        let outcome = try setTwice("1", "1.0")
        #expect(outcome.reply == .set(key: "k", version: 1, changed: false))
        #expect(outcome.changes.isEmpty, "no event")
        #expect(outcome.stored == "1")
    }

    @Test func aDifferentValueStillChanges() throws {
        let outcome = try setTwice(#"{"a":1,"b":2}"#, #"{"a":1,"b":2.5}"#)
        #expect(outcome.reply == .set(key: "k", version: 2, changed: true))
        #expect(outcome.changes.map(\.version) == [2])
    }

    @Test func aValueIsRepliedAndSentToObserversByteForByte() throws {
        let fixture = try SessionFixture(configuration: testConfiguration())
        let writer = SessionHarness(fixture: fixture)
        let observer = SessionHarness(fixture: fixture)
        try observer.send(#"{"op":"observe","key":"k"}"#)
        let sent = #"{"a": 1.0, "s": "\u00e9"}"#
        writer.session.receive(Array((#"{"op":"set","key":"k","value":"# + sent + "}\n").utf8))
        writer.session.receive(Array(#"{"op":"get","key":"k","id":2}"#.utf8) + [10])
        _ = writer.session.output.answerFrames(of: writer.session)
        let replies = writer.session.output.drainLines().map { String(decoding: $0, as: UTF8.self) }
        #expect(replies.count == 2)
        #expect(replies.last?.contains(#""value":"# + sent + ",") == true, "the get reply holds the bytes sent")
        let events = observer.session.output.drainLines().map { String(decoding: $0, as: UTF8.self) }
        #expect(events.count == 1)
        #expect(events.first?.contains(#""new":"# + sent + ",") == true, "the event holds the bytes sent")
    }

    @Test func aValueComesBackByteForByteAfterARestart() throws {
        let sent = try value(#" {"a": 1.0, "s": "\u00e9", "n" : [ 1 ,2 ]} "#)
        let first = try open(.always)
        try first.store.set("k", to: sent, by: alice)
        try storage(of: first).close()

        let second = try open(.always)
        let stored = try #require(second.store.get("k"))
        #expect(stored.value.bytes == sent.bytes)
        #expect(stored.value.description == #"{"a": 1.0, "s": "\u00e9", "n" : [ 1 ,2 ]}"#)
        let resumed = second.store.observe(
            .key("k"), from: ResumePoint(revision: 0, epoch: nil), by: ChangeRecorder(), subscribe: { _ in false },
            receive: { _ in })
        let replayed = try #require(resumed.replay?.first)
        #expect(String(decoding: replayed.frame, as: UTF8.self).contains(#""new":"# + sent.description + ","))
    }

    @Test func aDataDirectoryWrittenByTheTreeKeepingBuildLoads() throws {
        let data = directory.path(of: "data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for (name, base64) in [
            ("snapshot-0000000002.obs", OldDataDirectory.snapshot), ("log-0000000002.obs", OldDataDirectory.log),
        ] {
            let bytes = try #require(Data(base64Encoded: base64))
            try bytes.write(to: URL(fileURLWithPath: data + "/" + name))
        }
        let context = try open(.always)
        let store = context.store
        #expect(store.revision == 40)
        #expect(store.epoch == "bce987b0a9f7")
        #expect(store.keyCount == 14)
        #expect(store.get("pad.0") == nil)
        #expect(store.get("sky.color")?.value.description == #"{"r":255,"g":1}"#, "as the older build wrote it")
        #expect(store.get("sky.color")?.value == (try value(#"{"g": 1.0, "r": 255}"#)))
        #expect(store.get("late")?.value == "été")
        #expect(store.get("retry")?.value == [1, 2.5, nil])
        // The changes after 20 come from the snapshot's history (up to 31) and the log.
        let resumed = store.observe(
            .prefix(""), from: ResumePoint(revision: 20, epoch: "bce987b0a9f7"), by: ChangeRecorder(),
            subscribe: { _ in false }, receive: { _ in })
        let replay = try #require(resumed.replay)
        #expect(replay.map(\.version) == Array(21...40))
        let lastFromSnapshot = try #require(replay.first { $0.version == 31 })
        #expect(try RawEvent.decode(frame: lastFromSnapshot.frame.dropLast()) == lastFromSnapshot.event)
    }
}
