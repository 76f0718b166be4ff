import ObservatoryHTTP
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `GET /ws` against a real server: the line protocol as WebSocket messages.
@Suite struct WebSocketEndToEndTests {
    @Test func observeAndUpdatesArriveAsMessagesWithRequestIDs() throws {
        let server = try TestServer()
        let watcher = try WebClient(port: server.port)
        try watcher.upgrade("/ws?name=watcher")
        try watcher.sendText(#"{"op":"observe","prefix":"sky.","id":"o1"}"#)
        let reply = try watcher.nextMessage()
        #expect(reply["id"] == "o1")
        #expect(reply["values"] == [])
        let writer = try server.client()
        _ = try writer.request(#"{"op":"hello","name":"alice"}"#)
        _ = try writer.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
        let event = try watcher.nextMessage()
        #expect(event["event"] == "update")
        #expect(event["new"] == "red")
        #expect(event["author"] == "alice")
        try watcher.sendText(#"{"op":"set","key":"sky.mood","value":1,"id":9}"#)
        let own = try watcher.nextMessage()
        let second = try watcher.nextMessage()
        let messages = [own, second]
        #expect(messages.contains { $0["id"] == 9 && $0["ok"] == true })
        #expect(messages.contains { $0["event"] == "update" && $0["author"] == "watcher" })
    }

    @Test func resumeReplaysTheChangesMissed() throws {
        let server = try TestServer()
        let writer = try server.client()
        _ = try writer.request(#"{"op":"set","key":"k.a","value":1}"#)
        _ = try writer.request(#"{"op":"set","key":"k.a","value":2}"#)
        let client = try WebClient(port: server.port)
        try client.upgrade()
        let epoch = try writer.request(#"{"op":"ping"}"#)["epoch"] ?? .null
        let request: JSONValue = ["op": "observe", "prefix": "k.", "fromRevision": 1, "epoch": epoch]
        try client.sendText(String(decoding: request.encoded(), as: UTF8.self))
        #expect(try client.nextMessage()["resumed"] == true)
        let replayed = try client.nextMessage()
        #expect(replayed["version"] == 2)
        #expect(replayed["old"] == 1)
    }

    @Test func aSessionBoundKeyEndsWithTheWebSocket() throws {
        let server = try TestServer()
        let watcher = try server.client()
        _ = try watcher.request(#"{"op":"observe","key":"presence.web"}"#)
        let client = try WebClient(port: server.port)
        try client.upgrade()
        try client.sendText(#"{"op":"set","key":"presence.web","value":true,"ephemeral":true}"#)
        #expect(try client.nextMessage()["ok"] == true)
        #expect(try watcher.next()["event"] == "update")
        try client.sendFrame(.close, [0x03, 0xE8])
        #expect(try client.closeCode() == 1000)
        let ended = try watcher.next()
        #expect(ended["event"] == "delete")
        #expect(ended["reason"] == "session_ended")
    }

    @Test func pingsGetPongsAndBadFramesTheirCloseCodes() throws {
        let server = try TestServer {
            $0.limits.maxFrameBytes = 1_000
            $0.limits.maxValueBytes = 500
        }
        let pinger = try WebClient(port: server.port)
        try pinger.upgrade()
        try pinger.sendFrame(.ping, [9])
        let pong = try pinger.nextFrame()
        #expect(pong?.opcode == .pong)
        #expect(pong?.payload == [9])
        let cases: [(WebSocketOpcode, [UInt8], Bool, UInt16)] = [
            (.binary, [1], true, 1003),
            (.text, [0xFF], true, 1007),
            (.text, Array("{}".utf8), false, 1002),
            (.text, [UInt8](repeating: 32, count: 1_001), true, 1009),
        ]
        for (opcode, payload, masked, code) in cases {
            let client = try WebClient(port: server.port)
            try client.upgrade()
            try client.sendFrame(opcode, payload, masked: masked)
            #expect(try client.closeCode() == code)
            #expect(try client.nextFrame() == nil)
        }
    }

    @Test func aWrongTokenInTheQueryFailsLikeAHello() throws {
        let server = try TestServer {
            $0.auth.tokens = [AccessToken(token: "t-alice", author: "alice", read: ["*"], write: ["*"])]
        }
        let good = try WebClient(port: server.port)
        try good.upgrade("/ws?token=t-alice")
        try good.sendText(#"{"op":"set","key":"a","value":1}"#)
        #expect(try good.nextMessage()["ok"] == true)
        let bad = try WebClient(port: server.port)
        try bad.upgrade("/ws?token=nope")
        #expect(try bad.nextMessage()["error"]?["code"] == "unauthenticated")
        #expect(try bad.closeCode() == 1008)
    }

    /// Events the queue writes as text messages and the pongs the machine writes
    /// share the socket: every frame arrives whole, the events in order, each pong
    /// between two messages.
    @Test func aBurstOfEventsAndPingsArrivesAsWholeFrames() throws {
        let server = try TestServer()
        let watcher = try WebClient(port: server.port)
        try watcher.upgrade()
        try watcher.sendText(#"{"op":"observe","key":"burst"}"#)
        #expect(try watcher.nextMessage()["ok"] == true)
        let writer = try server.client()
        let (count, pings) = (400, 10)
        for value in 1...count {
            try writer.send(#"{"op":"set","key":"burst","value":"# + "\(value)}")
            if value % (count / pings) == 0 { try watcher.sendFrame(.ping, [UInt8(value / (count / pings))]) }
        }
        var values: [Int64] = []
        var pongs: [[UInt8]] = []
        // Bounded: one frame per round, each read waits at most the client's patience.
        for _ in 0..<(count + pings) {
            guard let frame = try watcher.nextFrame() else { break }
            if frame.opcode == .pong { pongs.append(frame.payload) }
            if frame.opcode == .text, let value = try JSONValue.parse(frame.payload)["new"]?.integerValue {
                values.append(value)
            }
        }
        #expect(values == Array(1...Int64(count)))
        #expect(pongs == (1...pings).map { [UInt8($0)] })
    }
}
