import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// A batch whose reply is lost goes out again after the reconnect, with the same `requestId`.
@Suite(.timeLimit(.minutes(1))) struct BatchRetryEndToEndTests {
    private func fields(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Accepts the client and answers its hello.
    private func greet(_ peer: LoopbackPeer) async throws {
        try await peer.accept()
        let hello = try fields(try #require(await peer.receiveLine()))
        let id = try #require(hello["id"] as? Int)
        peer.send(
            #"{"ok":true,"id":\#(id),"server":"fake","protocol":1,"session":"s1","author":"probe","#
                + #""revision":4,"epoch":"e1"}"# + "\n")
    }

    /// The next request that is not a ping; pings (the client's resync and liveness) are answered.
    private func nextRequest(_ peer: LoopbackPeer) async throws -> [String: Any] {
        while true {
            let request = try fields(try #require(await peer.receiveLine()))
            guard request["op"] as? String == "ping" else { return request }
            let id = try #require(request["id"] as? Int)
            peer.send(#"{"ok":true,"id":\#(id),"revision":4,"epoch":"e1"}"# + "\n")
        }
    }

    @Test func aBatchWhoseReplyWasLostIsSentAgainWithTheSameRequestId() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, name: "probe")
        configuration.backoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(50), jitter: 0)
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await greet(peer)
        #expect(await eventually { client.currentState.isConnected })

        async let outcome = client.batch([.set("a", 1), .delete("b")])
        let first = try await nextRequest(peer)
        #expect(first["op"] as? String == "batch")
        let requestId = try #require(first["requestId"] as? String)
        peer.closeConnection()

        try await greet(peer)
        let second = try await nextRequest(peer)
        #expect(second["op"] as? String == "batch")
        #expect(second["requestId"] as? String == requestId)
        let id = try #require(second["id"] as? Int)
        peer.send(
            #"{"ok":true,"id":\#(id),"revision":9,"results":[{"key":"a","version":9,"changed":true},"#
                + #"{"key":"b","version":9}],"duplicate":true}"# + "\n")

        let result = try await outcome
        #expect(result.revision == 9)
        #expect(result.results.map(\.key) == ["a", "b"])
        #expect(result.results.map(\.changed) == [true, nil])
    }
}
