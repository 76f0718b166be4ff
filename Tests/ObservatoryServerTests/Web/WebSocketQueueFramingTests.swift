import ObservatoryHTTP
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A WebSocket whose queue writes its text messages itself: when the queue may,
/// how its messages are framed, and how the machine's own frames fit between them.
@Suite struct WebSocketQueueFramingTests {
    private static let upgrade =
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

    /// A machine after an accepted upgrade to `target`, its 101 sent.
    private func upgraded(target: String = "/ws") -> HTTPConnectionMachine {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        machine.receive(Array(Self.upgrade.replacingOccurrences(of: "/ws", with: target).utf8))
        _ = machine.process(.serving)
        machine.produce(from: [])
        machine.handOut(.wire, count: machine.pendingWire.count)
        machine.markSent(machine.pendingWire.count)
        return machine
    }

    private func maskedFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8] = []) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, maskingKey: 7, payload: payload))
    }

    /// Frames as a client decodes them.
    private func decoded(_ bytes: some Sequence<UInt8>) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    @Test func onlyAnOpenWebSocketThatOwesNothingTakesTheQueueFramed() {
        var http = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        #expect(!http.canTakeQueueFramed)
        http.receive(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        _ = http.process(.serving)
        #expect(!http.canTakeQueueFramed)

        var plain = upgraded()
        #expect(plain.canTakeQueueFramed)
        plain.takeQueueFramed()
        #expect(!plain.canTakeQueueFramed && plain.takesQueueFramed)

        var withToken = upgraded(target: "/ws?token=t1")
        #expect(!withToken.canTakeQueueFramed)
        withToken.produce(from: Array("{\"ok\":true,\"id\":1}\n".utf8)[...])
        #expect(withToken.canTakeQueueFramed)

        var closed = upgraded()
        closed.receive(maskedFrame(.close))
        #expect(!closed.canTakeQueueFramed)
    }

    @Test func aPongWaitsForTheEndOfAMessageTheQueueBegan() throws {
        var machine = upgraded()
        machine.takeQueueFramed()
        #expect(machine.nextSource == .queue)
        machine.handOut(.queue, count: 100)
        let firstWasQueue = machine.markSent(40)
        #expect(firstWasQueue)
        machine.receive(maskedFrame(.ping, [5]))
        #expect(machine.nextSource == .queue)
        machine.handOut(.queue, count: 60)
        let restWasQueue = machine.markSent(60)
        #expect(restWasQueue)
        #expect(machine.nextSource == .wire)
        let pong = machine.pendingWire
        machine.handOut(.wire, count: pong.count)
        let pongWasQueue = machine.markSent(pong.count)
        #expect(!pongWasQueue)
        #expect(try decoded(pong).map(\.opcode) == [.pong])
        #expect(machine.nextSource == .queue)
    }

    @Test func aClosedWebSocketDropsTheQueuesMessagesAfterItsCloseFrame() throws {
        var machine = upgraded()
        machine.takeQueueFramed()
        machine.receive(maskedFrame(.close, [0x03, 0xE8]))
        #expect(machine.nextSource == .wire)
        let close = machine.pendingWire
        #expect(try decoded(close).map(\.opcode) == [.close])
        machine.handOut(.wire, count: close.count)
        machine.markSent(close.count)
        #expect(machine.nextSource == .droppedQueue)
        #expect(machine.closesWhenSent)
    }

    @Test(arguments: [OutboundFraming.lines, .webSocketText])
    func aQueueWritesRepliesAndEventsInItsFraming(framing: OutboundFraming) throws {
        var queue = OutboundQueue(maxQueuedBytes: 1_000_000)
        queue.framing = framing
        let reply = #"{"ok":true,"id":1}"#
        let long = String(repeating: "x", count: 300)
        queue.appendFrame(Array(reply.utf8) + [10])
        let change = StoreChange.update(
            key: "a", old: nil, new: .string(long), version: 1, by: Author(name: "alice", session: "s1"))
        #expect(queue.appendEvent(change) == .queued)
        queue.appendFrame(Array(#"{"event":"shutdown"}"#.utf8) + [10])
        var bytes: [UInt8] = []
        // Bounded: each round takes a chunk or ends.
        for _ in 0..<100 {
            let chunk = queue.nextBytes()
            if chunk.isEmpty { break }
            bytes += chunk
            queue.markSent(chunk.count)
        }
        let lines = [reply, String(decoding: change.frame.dropLast(), as: UTF8.self), #"{"event":"shutdown"}"#]
        if framing == .lines {
            #expect(String(decoding: bytes, as: UTF8.self) == lines.map { $0 + "\n" }.joined())
        } else {
            let frames = try decoded(bytes)
            #expect(frames.map { String(decoding: $0.payload, as: UTF8.self) } == lines)
            #expect(frames.allSatisfy { $0.opcode == .text && $0.fin && $0.maskingKey == nil })
        }
    }
}
