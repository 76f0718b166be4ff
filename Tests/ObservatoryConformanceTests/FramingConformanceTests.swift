import Foundation
import Testing

/// docs/protocol.md, "Transport and framing": one JSON object per LF-terminated line,
/// CR before LF ignored, empty lines ignored, pipelining, frame size limit.
@Suite struct FramingConformanceTests {
    @Test func carriageReturnBeforeLineFeedIsIgnored() throws {
        try withServer { server in
            let client = try server.connect()
            try client.send(raw: "{\"op\":\"ping\",\"id\":1}\r\n")
            let reply = try client.nextFrame()
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.id == .integer(1))
        }
    }

    @Test func emptyLinesAreIgnoredWithoutAnyReply() throws {
        try withServer { server in
            let client = try server.connect()
            try client.send(raw: "\n\n\r\n{\"op\":\"ping\",\"id\":1}\n\n\r\n\n{\"op\":\"ping\",\"id\":2}\n\n")
            let first = try client.nextFrame()
            let second = try client.nextFrame()
            #expect(first.ok == true && first.id == .integer(1), "\(first)")
            #expect(second.ok == true && second.id == .integer(2), "\(second)")
            try client.send(raw: "{\"op\":\"ping\",\"id\":3}\n")
            let third = try client.nextFrame()
            #expect(third.id == .integer(3), "an empty line got a reply: \(third)")
        }
    }

    @Test func manyPipelinedRequestsInOneWriteAreAllAnsweredInOrder() throws {
        try withServer { server in
            let client = try server.connect()
            let count = 600
            var batch = ""
            for index in 0..<count {
                switch index % 4 {
                case 0: batch += "{\"op\":\"set\",\"key\":\"pipe.\(index % 10)\",\"value\":\(index),\"id\":\(index)}\n"
                case 1: batch += "{\"op\":\"get\",\"key\":\"pipe.\(index % 10)\",\"id\":\(index)}\n"
                case 2: batch += "{\"op\":\"ping\",\"id\":\(index)}\n"
                default: batch += "{\"op\":\"fly\",\"id\":\(index)}\n"
                }
            }
            try client.send(raw: batch)
            var ids: [Int64] = []
            for _ in 0..<count {
                let frame = try client.nextFrame()
                ids.append(frame.id?.integer ?? -1)
            }
            #expect(ids == (0..<count).map(Int64.init))
        }
    }

    @Test func tenThousandPipelinedRequestsWithoutWaitingAreAllAnsweredInOrder() throws {
        try withServer { server in
            let client = try server.connect()
            let count = 10_000
            var batch = ""
            for index in 0..<count {
                batch +=
                    index % 2 == 0
                    ? "{\"op\":\"set\",\"key\":\"deep.\(index % 100)\",\"value\":\(index),\"id\":\(index)}\n"
                    : "{\"op\":\"ping\",\"id\":\(index)}\n"
            }
            try client.send(raw: batch)
            var outOfOrder: [String] = []
            for index in 0..<count {
                let reply = try client.nextFrame()
                if reply.id != .integer(Int64(index)) || reply.ok != true, outOfOrder.count < 5 {
                    outOfOrder.append("expected id \(index), got \(reply)")
                }
            }
            #expect(outOfOrder.isEmpty, "\(outOfOrder)")
        }
    }

    @Test func frameSplitAcrossWritesByteByByteIsReassembled() throws {
        try withServer { server in
            let client = try server.connect()
            // A multi-byte character is split between writes too.
            let line =
                "{\"op\":\"set\",\"key\":\"split.é\",\"value\":\"añ😀\",\"id\":\"split\"}\n"
                + "{\"op\":\"get\",\"key\":\"split.é\",\"id\":\"again\"}\r\n"
            for byte in Array(line.utf8) {
                try client.send(bytes: [byte])
                // Deliberate pacing: a pause per byte, so the bytes reach the server in
                // separate reads rather than coalesced into one segment.
                usleep(100)
            }
            let set = try client.nextFrame()
            #expect(set.ok == true && set.id == .string("split"), "\(set)")
            let get = try client.nextFrame()
            #expect(get.id == .string("again"))
            #expect(get["value"] == .string("añ😀"), "\(get)")
            #expect(get.string("key") == "split.é")
        }
    }

    @Test func framesSplitAtArbitraryPointsAcrossWritesAreReassembled() throws {
        try withServer { server in
            let client = try server.connect()
            let lines = (0..<20).map {
                "{\"op\":\"set\",\"key\":\"chunk.\($0)\",\"value\":[\($0),\"x\"],\"id\":\($0)}\n"
            }
            let bytes = Array(lines.joined().utf8)
            var offset = 0
            var size = 1
            while offset < bytes.count {
                let end = min(bytes.count, offset + size)
                try client.send(bytes: Array(bytes[offset..<end]))
                // Deliberate pacing, so the chunks reach the server in separate reads.
                usleep(200)
                offset = end
                size = size % 37 + 7
            }
            for index in 0..<20 {
                let reply = try client.nextFrame()
                #expect(reply.ok == true && reply.id == .integer(Int64(index)), "\(reply)")
            }
        }
    }

    @Test func frameLongerThanMaxFrameBytesGetsFrameTooLargeAndClose() throws {
        try withServer({
            $0.limits.maxFrameBytes = 1_024
            $0.limits.maxValueBytes = 512
        }) { server in
            let client = try server.connect()
            let padding = String(repeating: "a", count: 1_025 - 30)
            let head = "{\"op\":\"set\",\"key\":\"k\",\"value\":\""
            try client.send(raw: String((head + padding).prefix(1_025)))
            let frames = try client.framesUntilClosed()
            let error = try #require(frames.last, "no reply before the close")
            #expect(error.ok == false)
            #expect(error.errorCode == "frame_too_large", "\(error)")
        }
    }

    @Test func completeLineLongerThanMaxFrameBytesGetsFrameTooLargeAndClose() throws {
        try withServer({
            $0.limits.maxFrameBytes = 1_024
            $0.limits.maxValueBytes = 512
        }) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "ping"]).ok == true)
            let value = String(repeating: "a", count: 2_000)
            try client.send(
                raw: "{\"op\":\"set\",\"key\":\"k\",\"id\":2,\"value\":\"\(value)\"}\n{\"op\":\"ping\",\"id\":3}\n")
            let frames = try client.framesUntilClosed()
            let error = try #require(frames.first, "no reply before the close")
            #expect(error.errorCode == "frame_too_large", "\(error)")
            let laterRequestUnserved = !frames.contains { $0.id == .integer(3) }
            #expect(laterRequestUnserved, "requests after a frame_too_large must not be served")
        }
    }

    @Test func frameTooLargeReachesAClientThatKeepsPipelining() throws {
        try withServer({
            $0.limits.maxFrameBytes = 1_024
            $0.limits.maxValueBytes = 512
        }) { server in
            let client = try server.connect()
            let tooLong = "{\"op\":\"set\",\"key\":\"k\",\"value\":\"" + String(repeating: "a", count: 2_000) + "\"}\n"
            let more = String(repeating: "{\"op\":\"ping\"}\n", count: 20_000)
            try? client.send(raw: tooLong + more)
            let frames = try client.framesUntilClosed()
            let ending = client.wasReset ? "a reset" : "an orderly close"
            #expect(frames.first?.errorCode == "frame_too_large", "\(frames.count) frames, then \(ending)")
        }
    }

    @Test func frameTooLargeReachesAClientThatSendsMoreAfterIt() throws {
        try withServer({
            $0.limits.maxFrameBytes = 1_024
            $0.limits.maxValueBytes = 512
        }) { server in
            let client = try server.connect()
            try client.send(raw: "{\"op\":\"set\",\"key\":\"k\",\"value\":\"" + String(repeating: "a", count: 2_000))
            // The server has answered the oversized frame before more requests follow it;
            // they land unread in a socket the server is closing.
            #expect(client.waitUntilReadable(timeout: .seconds(10)), "no answer to the oversized frame")
            try? client.send(raw: String(repeating: "{\"op\":\"ping\"}\n", count: 500), timeout: .milliseconds(200))
            let frames = try client.framesUntilClosed()
            let ending = client.wasReset ? "a reset" : "an orderly close"
            #expect(frames.first?.errorCode == "frame_too_large", "\(frames.count) frames, then \(ending)")
        }
    }

    @Test func frameLongerThanDefaultOneMebibyteGetsFrameTooLargeAndClose() throws {
        try withServer { server in
            let client = try server.connect()
            var bytes = Array("{\"op\":\"set\",\"key\":\"k\",\"value\":\"".utf8)
            bytes += [UInt8](repeating: UInt8(ascii: "b"), count: 1_048_577 - bytes.count)
            try client.send(bytes: bytes)
            let frames = try client.framesUntilClosed(timeout: .seconds(10))
            let error = try #require(frames.last, "no reply before the close")
            #expect(error.errorCode == "frame_too_large", "\(error)")
        }
    }

    @Test func frameOfExactlyMaxFrameBytesIsAccepted() throws {
        try withServer({
            $0.limits.maxFrameBytes = 1_024
            $0.limits.maxValueBytes = 1_024
        }) { server in
            let client = try server.connect()
            let head = "{\"op\":\"set\",\"key\":\"k\",\"id\":1,\"value\":\""
            let tail = "\"}"
            let line = head + String(repeating: "c", count: 1_024 - head.utf8.count - tail.utf8.count) + tail
            #expect(line.utf8.count == 1_024)
            try client.send(raw: line + "\n")
            let reply = try client.nextFrame()
            #expect(reply.ok == true, "a frame of exactly maxFrameBytes (LF not counted) was refused: \(reply)")
        }
    }

    @Test func textThatIsNotJSONGetsBadFrameWithNullIDAndConnectionStaysOpen() throws {
        try withServer { server in
            let client = try server.connect()
            let notObjects = [
                "not json", "{\"op\":\"ping\",\"id\":1", "[1,2,3]", "42", "\"ping\"", "null", "true",
                "{\"op\":\"ping\",\"id\":1} trailing", "[{\"op\":\"ping\",\"id\":1}]",
            ]
            for text in notObjects {
                try client.send(raw: text + "\n")
                let reply = try client.nextFrame()
                #expect(reply.ok == false, "\(text) -> \(reply)")
                #expect(reply.errorCode == "bad_frame", "\(text) -> \(reply)")
                #expect(reply.id == .null, "\(text) -> \(reply) must carry \"id\":null")
            }
            let ping = try client.call(["op": "ping"])
            #expect(ping.ok == true)
        }
    }

    @Test func invalidUTF8GetsBadFrameWithNullID() throws {
        try withServer { server in
            let client = try server.connect()
            var bytes = Array("{\"op\":\"set\",\"key\":\"k\",\"value\":\"".utf8)
            bytes += [0xC3, 0x28, 0xFF]
            bytes += Array("\",\"id\":5}\n".utf8)
            try client.send(bytes: bytes)
            let reply = try client.nextFrame()
            #expect(reply.errorCode == "bad_frame", "\(reply)")
            #expect(reply.id == .null, "\(reply)")
            let ping = try client.call(["op": "ping"])
            #expect(ping.ok == true)
        }
    }
}
