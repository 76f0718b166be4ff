import ObservatoryWire
import Testing

@Suite struct EventTests {
    @Test func updateEventsEncodeExactlyAsTheProtocolShows() {
        let event = Event.update(key: "sky.color", old: "blue", new: "red", version: 12, author: "alice", session: "s3")
        #expect(
            text(event.encoded())
                == #"{"event":"update","key":"sky.color","old":"blue","new":"red","version":12,"author":"alice","session":"s3"}"#
        )
    }

    @Test func updateEventsOfNewKeysHaveNoOld() {
        let event = Event.update(key: "k", old: nil, new: [1, 2], version: 1, author: "bob", session: "s1")
        #expect(
            text(event.encoded())
                == #"{"event":"update","key":"k","new":[1,2],"version":1,"author":"bob","session":"s1"}"#)
    }

    @Test func updateEventsFromNullKeepOldAsNull() {
        let event = Event.update(key: "k", old: .null, new: 1, version: 2, author: "bob", session: "s1")
        #expect(
            text(event.encoded())
                == #"{"event":"update","key":"k","old":null,"new":1,"version":2,"author":"bob","session":"s1"}"#)
    }

    @Test func deleteEventsEncodeExactlyAsTheProtocolShows() {
        let event = Event.delete(key: "sky.color", old: "red", version: 13, author: "alice", session: "s3")
        #expect(
            text(event.encoded())
                == #"{"event":"delete","key":"sky.color","old":"red","version":13,"author":"alice","session":"s3"}"#)
    }

    @Test func shutdownEventsEncodeExactlyAsTheProtocolShows() {
        #expect(text(Event.shutdown.encoded()) == #"{"event":"shutdown"}"#)
    }

    @Test func encodeIntoAppends() {
        var buffer: [UInt8] = Array("x".utf8)
        Event.shutdown.encode(into: &buffer)
        #expect(text(buffer) == #"x{"event":"shutdown"}"#)
    }
}
