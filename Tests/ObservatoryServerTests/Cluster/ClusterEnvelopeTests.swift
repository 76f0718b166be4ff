import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// What a node stores in etcd keeps its format while the value travels as bytes:
/// nodes of older builds (which wrote and read the envelope as a tree) and newer
/// ones share one etcd, and a value comes back from etcd as it was sent.
@Suite struct ClusterEnvelopeTests {
    private let alice = Author(name: "alice", session: "sa.1")

    /// The envelope as builds that kept values as trees wrote it.
    private func treeEncoding(_ value: JSONValue?, sessionBound: Bool) -> [UInt8] {
        var members: [(String, JSONValue)] = []
        if let value { members.append(("value", value)) }
        members.append(("author", .string(alice.name)))
        members.append(("session", .string(alice.session)))
        if sessionBound { members.append(("sessionBound", .bool(true))) }
        return JSONValue.object(JSONObject(members)).encoded()
    }

    @Test func aCanonicalValuesEnvelopeIsTheBytesOlderBuildsWrote() {
        let value: JSONValue = ["rgb": [0, 0.5, 1], "name": "crème \"x\""]
        for sessionBound in [false, true] {
            let envelope = ClusterEnvelope(value: EncodedJSON(value), author: alice, sessionBound: sessionBound)
            #expect(envelope.encoded() == treeEncoding(value, sessionBound: sessionBound))
        }
        #expect(ClusterEnvelope(value: nil, author: alice).encoded() == treeEncoding(nil, sessionBound: false))
    }

    @Test func aValueComesBackFromEtcdAsItWasSent() throws {
        let sent = try EncodedJSON(validating: Array(#"{"a": 1.0, "b" : [ 1 ]}"#.utf8))
        let stored = ClusterEnvelope(value: sent, author: alice).encoded()
        let read = try #require(ClusterEnvelope.decode(stored))
        #expect(read.value?.bytes == sent.bytes)
        #expect(read.author.name == "alice" && read.author.session == "sa.1" && !read.sessionBound)
    }

    @Test func anEnvelopeAnOlderBuildWroteReads() throws {
        let stored = Array(#"{"value":{"a":1},"author":"alice","session":"sa.1","sessionBound":true}"#.utf8)
        #expect(ClusterEnvelope.decode(stored) == ClusterEnvelope(value: ["a": 1], author: alice, sessionBound: true))
        #expect(ClusterEnvelope.decode(Array(#"{"value":1}"#.utf8)) == nil, "a foreign value")
        #expect(ClusterEnvelope.decode(Array("not json".utf8)) == nil)
        let repeated = Array(#"{"value":1,"author":"alice","session":"sa.1","value":2}"#.utf8)
        #expect(ClusterEnvelope.decode(repeated)?.value == 2, "the last value, as a parsed object keeps it")
    }
}
