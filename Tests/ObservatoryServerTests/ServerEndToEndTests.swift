import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

@Suite struct ServerEndToEndTests {
    private func code(_ reply: JSONValue?) -> String? {
        reply?["error"]?["code"]?.stringValue
    }

    @Test func startBindsAFreePortAndStopClosesIt() throws {
        let server = try Server(configuration: testConfiguration())
        #expect(server.port == 0)
        try server.start()
        let port = server.port
        #expect(port > 0)
        server.stop()
        #expect(throws: SocketError.self) { try StreamSocket.connect(host: "127.0.0.1", port: port).close() }
    }

    @Test func everyOpAndEventOverRealSockets() throws {
        let running = try TestServer(configuration: testConfiguration())
        let alice = try running.client()
        let bob = try running.client()
        let hello = try alice.request(#"{"op":"hello","name":"alice","id":1}"#)
        let aliceSession = try #require(hello["session"]?.stringValue)
        #expect(try bob.request(#"{"op":"hello","name":"bob"}"#)["author"] == "bob")
        #expect(try alice.request(#"{"op":"set","key":"sky.color","value":"blue","id":2}"#)["version"] == 1)
        let observed = try bob.request(#"{"op":"observe","prefix":"sky.","id":3}"#)
        #expect(observed["values"]?[0]?["value"] == "blue")
        #expect(try alice.request(#"{"op":"set","key":"sky.color","value":"red","id":4}"#)["changed"] == true)
        #expect(
            try bob.next()
                == (try json(
                    #"{"event":"update","key":"sky.color","old":"blue","new":"red","version":2,"author":"alice","session":"\#(aliceSession)"}"#
                )))
        #expect(try alice.request(#"{"op":"delete","key":"sky.color","id":5}"#)["version"] == 3)
        #expect(try bob.next()["event"] == "delete")
        #expect(try bob.request(#"{"op":"unobserve","prefix":"sky.","id":6}"#)["ok"] == true)
        #expect(try alice.request(#"{"op":"set","key":"sky.color","value":"green"}"#)["ok"] == true)
        #expect(try bob.request(#"{"op":"list","prefix":"sky.","id":7}"#)["keys"]?[0]?["version"] == 4)
        #expect(try bob.request(#"{"op":"get","key":"sky.color"}"#)["author"] == "alice")
        let ping = try bob.request(#"{"op":"ping","id":8}"#)
        #expect(ping["ok"] == true && ping["id"] == 8)
        #expect(ping["revision"] == 4)
        #expect(ping["epoch"]?.stringValue?.count == 12)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let running = try TestServer(configuration: testConfiguration())
        let client = try running.client()
        let frames = (0..<2_000).map { #"{"op":"set","key":"k\#($0 % 13)","value":\#($0),"id":\#($0)}"# }
        try client.sendBytes(Array(frames.map { $0 + "\n" }.joined().utf8))
        for id in 0..<2_000 {
            #expect(try client.next()["id"] == .integer(Int64(id)))
        }
    }

    @Test func badInputGetsItsCodeWhileOthersAreServed() throws {
        let running = try TestServer {
            $0.limits.maxValueBytes = 1_000
            $0.limits.maxFrameBytes = 4_096
        }
        let victim = try running.client()
        let bystander = try running.client()
        try bystander.send(#"{"op":"observe","key":"k"}"#)
        _ = try bystander.next()
        let cases: [(String, String)] = [
            ("{not json", "bad_frame"),
            ("[1]", "bad_frame"),
            (#"{"op":"nope"}"#, "unknown_op"),
            (#"{"key":"k"}"#, "bad_request"),
            (#"{"op":"set","key":"k"}"#, "bad_request"),
            (#"{"op":"get","key":"a b"}"#, "invalid_key"),
            (#"{"op":"set","key":"k","value":"\#(String(repeating: "v", count: 2_000))"}"#, "value_too_large"),
            (String(repeating: "{\"a\":", count: 500), "bad_frame"),
            (#"{"op":"set","key":"k","value":1e999}"#, "bad_frame"),
        ]
        for (frame, expected) in cases {
            #expect(code(try victim.request(frame)) == expected, "\(frame.prefix(40))")
            #expect(try bystander.request(#"{"op":"ping","id":1}"#)["ok"] == true)
        }
        try victim.sendBytes([0xC3, 0x28, 0xFF, 10])
        #expect(code(try victim.next()) == "bad_frame")
        try victim.sendBytes(Array(repeating: UInt8(ascii: "x"), count: 5_000))
        let last = try victim.readUntilClosed()
        let lastCodes = last.map { code($0) }
        #expect(lastCodes == ["frame_too_large"])
        #expect(try bystander.request(#"{"op":"set","key":"k","value":1,"id":2}"#)["id"] == 2)
    }

    @Test func halfFrameThenHangUpLosesNothingElse() throws {
        let running = try TestServer(configuration: testConfiguration())
        let quitter = try running.client()
        try quitter.send(#"{"op":"set","key":"done","value":1}"#)
        _ = try quitter.next()
        try quitter.sendBytes(Array(#"{"op":"set","key":"half","val"#.utf8))
        quitter.close()
        let other = try running.client()
        #expect(try other.request(#"{"op":"get","key":"done"}"#)["value"] == 1)
        #expect(code(try other.request(#"{"op":"get","key":"half"}"#)) == "not_found")
    }

    @Test func slowConsumerGetsItsErrorAndIsClosedWithoutStallingOthers() throws {
        let running = try TestServer { $0.limits.maxQueuedBytes = 64 * 1_024 }
        let slow = try running.client(receiveBufferBytes: 4_096)
        _ = try slow.request(#"{"op":"observe","prefix":"k."}"#)
        let fast = try running.client()
        _ = try fast.request(#"{"op":"observe","key":"pulse"}"#)
        let writer = try running.client()
        let big = String(repeating: "x", count: 4_000)
        // The slow client never reads. Every key is new, so coalescing cannot shrink
        // the backlog: the kernel's buffers fill, then the server's queue overflows.
        let rounds = 2 * (kernelSendBufferCeiling() + 64 * 1_024) / big.count
        for round in 0..<rounds {
            let reply = try writer.request(#"{"op":"set","key":"k.\#(round)","value":"\#(big)"}"#)
            #expect(reply["ok"] == true)
            if round % 100 == 0 {
                _ = try writer.request(#"{"op":"set","key":"pulse","value":\#(round)}"#)
                #expect(try fast.next()["new"] == .integer(Int64(round)))
            }
        }
        // A deliberate pause, the behaviour under test rather than a wait for an event: a
        // client that stops reading for twice the grace time still learns why it is closed.
        Thread.sleep(forTimeInterval: 1)
        // The client reads again: the events the kernel held, then the error, then the close.
        let received = try slow.readUntilClosed(timeout: 10)
        let last = try #require(received.last)
        #expect(last["ok"] == false)
        #expect(last["id"] == .null)
        #expect(code(last) == "slow_consumer")
        #expect(received.count < rounds)
        #expect(try writer.request(#"{"op":"ping","id":9}"#)["id"] == 9)
    }

    @Test func coalescedEventsCarryTheLatestValue() throws {
        let running = try TestServer { $0.limits.maxQueuedBytes = 16 * 1_024 }
        let slow = try running.client(receiveBufferBytes: 4_096)
        _ = try slow.request(#"{"op":"observe","key":"hot"}"#)
        let writer = try running.client()
        let padding = String(repeating: "p", count: 2_000)
        for round in 0..<2_000 {
            _ = try writer.request(#"{"op":"set","key":"hot","value":["\#(padding)",\#(round)]}"#)
        }
        var latest: JSONValue?
        var count = 0
        while let line = try slow.nextLine() {
            let event = try JSONValue.parse(line)
            #expect(event["event"] == "update")
            latest = event
            count += 1
            if event["new"]?[1] == 1_999 { break }
        }
        #expect(latest?["new"]?[1] == 1_999)
        #expect(latest?["version"] == 2_000)
        #expect(count < 2_000)
    }

    @Test func connectionsBeyondTheLimitGetLimitExceeded() throws {
        let running = try TestServer { $0.limits.maxConnections = 2 }
        let first = try running.client()
        let second = try running.client()
        #expect(try first.request(#"{"op":"ping"}"#)["ok"] == true)
        #expect(try second.request(#"{"op":"ping"}"#)["ok"] == true)
        let third = try running.client()
        let messages = try third.readUntilClosed()
        let refusalCodes = messages.map { code($0) }
        #expect(refusalCodes == ["limit_exceeded"])
    }

    @Test func thousandConcurrentConnectionsAllObserveAndReceive() throws {
        let running = try TestServer(configuration: testConfiguration())
        var clients: [LineClient] = []
        for _ in 0..<1_000 {
            let client = try running.client()
            try client.send(#"{"op":"observe","key":"broadcast"}"#)
            clients.append(client)
        }
        for client in clients {
            #expect(try client.next()["values"] == [])
        }
        #expect(running.server.connectionCount == 1_000)
        let writer = try running.client()
        _ = try writer.request(#"{"op":"set","key":"broadcast","value":"hi"}"#)
        for client in clients {
            #expect(try client.next()["new"] == "hi")
        }
    }

    @Test func stopSendsShutdownToEveryConnectionAndRefusesLateRequests() throws {
        let running = try TestServer(configuration: testConfiguration())
        let clients = try (0..<5).map { _ in try running.client() }
        for client in clients {
            #expect(try client.request(#"{"op":"ping"}"#)["ok"] == true)
        }
        running.server.stop()
        for client in clients {
            let messages = try client.readUntilClosed()
            #expect(messages.contains(try json(#"{"event":"shutdown"}"#)))
        }
        #expect(running.server.connectionCount == 0)
    }

    @Test func noChangeIsLostOrRepeatedBetweenSnapshotAndEvents() throws {
        let running = try TestServer(configuration: testConfiguration())
        let port = running.port
        let writes = 3_000
        // The writer runs on its own thread while observers join at different moments.
        let writer = Thread {
            guard let client = try? LineClient(port: port) else { return }
            let frames = (1...writes).map { #"{"op":"set","key":"race","value":\#($0)}"# }
            for chunk in stride(from: 0, to: frames.count, by: 100) {
                try? client.sendBytes(
                    Array(frames[chunk..<min(chunk + 100, frames.count)].map { $0 + "\n" }.joined().utf8))
                for _ in chunk..<min(chunk + 100, frames.count) { _ = try? client.next() }
            }
        }
        writer.start()
        var observers: [(LineClient, Int64)] = []
        for _ in 0..<20 {
            let observer = try running.client()
            let snapshot = try observer.request(#"{"op":"observe","key":"race"}"#)
            let version = snapshot["values"]?[0]?["version"]?.integerValue ?? 0
            observers.append((observer, version))
        }
        for (observer, snapshotVersion) in observers where snapshotVersion < Int64(writes) {
            var expected = snapshotVersion + 1
            while expected <= Int64(writes) {
                let event = try observer.next(timeout: 10)
                #expect(event["version"]?.integerValue == expected)
                #expect(event["new"]?.integerValue == expected)
                guard event["version"]?.integerValue == expected else { break }
                expected += 1
            }
        }
    }

    @Test func authorComesFromTheConnectionNotTheRequest() throws {
        let running = try TestServer(configuration: testConfiguration())
        let mallory = try running.client()
        let session = try #require(try mallory.request(#"{"op":"hello","name":"mallory"}"#)["session"])
        let watcher = try running.client()
        _ = try watcher.request(#"{"op":"observe","key":"k"}"#)
        _ = try mallory.request(#"{"op":"set","key":"k","value":1,"author":"alice","session":"s1"}"#)
        let event = try watcher.next()
        #expect(event["author"] == "mallory")
        #expect(event["session"] == session)
    }

    @Test func wrongTokenIsRefusedAndClosedWhileGoodTokensWork() throws {
        let running = try TestServer {
            $0.auth.tokens = [AccessToken(token: "secret", author: "alice", read: ["*"], write: ["*"])]
        }
        let intruder = try running.client()
        #expect(code(try intruder.request(#"{"op":"get","key":"k","id":1}"#)) == "unauthenticated")
        try intruder.send(#"{"op":"hello","token":"guess","id":2}"#)
        let intruderCodes = try intruder.readUntilClosed().map { code($0) }
        #expect(intruderCodes == ["unauthenticated"])
        let alice = try running.client()
        #expect(try alice.request(#"{"op":"hello","token":"secret","name":"bob"}"#)["author"] == "alice")
        #expect(try alice.request(#"{"op":"ping","id":3}"#)["ok"] == true)
    }

    @Test func clientThatStopsSendingStillGetsEveryReply() throws {
        // A queue limit above the replies' size, so the server reads the hang-up while most
        // replies still wait in its queue, beyond what the kernel's socket buffers hold.
        let running = try TestServer { $0.limits.maxQueuedBytes = 64 << 20 }
        let client = try running.client()
        let value = String(repeating: "v", count: 2_000)
        #expect(try client.request(#"{"op":"set","key":"big","value":"\#(value)"}"#)["ok"] == true)
        let frames = (0..<10_000).map { #"{"op":"get","key":"big","id":\#($0)}"# }
        try client.sendBytes(Array(frames.map { $0 + "\n" }.joined().utf8))
        client.socket.shutdownWrite()
        let replies = try client.readUntilClosed()
        #expect(replies.count == 10_000)
        #expect(replies.last?["id"] == 9_999)
        let everyValueWhole = replies.allSatisfy { $0["value"]?.stringValue?.count == 2_000 }
        #expect(everyValueWhole)
    }
}
