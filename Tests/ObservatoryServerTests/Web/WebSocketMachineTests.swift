import ObservatoryHTTP
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The web face's machine after `GET /ws`: WebSocket frames in and out, without sockets.
@Suite struct WebSocketMachineTests {
    private static let upgrade =
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

    /// A machine after an accepted upgrade, its 101 taken.
    private func upgraded(target: String = "/ws", maxFrameBytes: Int = 1_024) -> (HTTPConnectionMachine, String) {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: maxFrameBytes)
        machine.receive(Array(Self.upgrade.replacingOccurrences(of: "/ws", with: target).utf8))
        let frames = String(decoding: machine.process(.serving).sessionBytes, as: UTF8.self)
        machine.produce(from: [])
        let head = String(decoding: machine.pendingWire, as: UTF8.self)
        machine.markSent(machine.pendingWire.count)
        #expect(head.hasPrefix("HTTP/1.1 101 "))
        #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        return (machine, frames)
    }

    private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, maskingKey: masked ? 7 : nil, payload: payload))
    }

    /// The frames the machine has to send, decoded as a client would.
    private func sentFrames(_ machine: inout HTTPConnectionMachine) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(machine.pendingWire)
        machine.markSent(machine.pendingWire.count)
        var frames: [WebSocketFrame] = []
        while let next = try decoder.next() { frames.append(next) }
        return frames
    }

    private func closeCode(_ frames: [WebSocketFrame]) -> UInt16? {
        guard let close = frames.last(where: { $0.opcode == .close }), close.payload.count >= 2 else { return nil }
        return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
    }

    @Test func eachTextMessageIsOneFrameForTheSession() {
        var (machine, _) = upgraded()
        machine.receive(frame(.text, Array("{\"op\":\n\"ping\"}".utf8)) + frame(.text, Array("{}".utf8)))
        let frames = String(decoding: machine.process(.serving).sessionBytes, as: UTF8.self)
        #expect(frames == "{\"op\": \"ping\"}\n{}\n")
    }

    @Test func eachReplyAndEventIsOneTextMessageWithoutItsLineFeed() throws {
        var (machine, _) = upgraded()
        machine.produce(from: Array("{\"ok\":true,\"id\":1}\n{\"event\":\"shutdown\"}\n".utf8)[...])
        let frames = try sentFrames(&machine)
        #expect(frames.map(\.opcode) == [.text, .text])
        #expect(
            frames.map { String(decoding: $0.payload, as: UTF8.self) } == [
                "{\"ok\":true,\"id\":1}", "{\"event\":\"shutdown\"}",
            ])
        #expect(frames.allSatisfy { $0.maskingKey == nil })
    }

    @Test func aPingGetsAPongWithItsPayload() throws {
        var (machine, _) = upgraded()
        machine.receive(frame(.ping, [1, 2, 3]))
        let frames = try sentFrames(&machine)
        #expect(frames.map(\.opcode) == [.pong])
        #expect(frames.first?.payload == [1, 2, 3])
    }

    @Test func closeCodesFollowTheProtocol() throws {
        let cases: [([UInt8], UInt16)] = [
            (frame(.binary, [1]), 1003),
            (frame(.text, [0xC3, 0x28]), 1007),
            (frame(.text, Array("{}".utf8), masked: false), 1002),
            (frame(.text, [UInt8](repeating: 32, count: 2_000)), 1009),
        ]
        for (bytes, code) in cases {
            var (machine, _) = upgraded()
            machine.receive(bytes)
            #expect(machine.process(.serving).sessionBytes.isEmpty)
            #expect(closeCode(try sentFrames(&machine)) == code)
            #expect(machine.closesWhenSent && machine.wantsToClose)
        }
    }

    @Test func aTokenInTheQueryIsAHelloWhoseSuccessIsNotForwarded() throws {
        var (machine, frames) = upgraded(target: "/ws?token=t1&name=web")
        #expect(frames == #"{"op":"hello","id":1,"token":"t1","name":"web"}"# + "\n")
        machine.produce(from: Array("{\"ok\":true,\"id\":1}\n{\"ok\":true,\"id\":7}\n".utf8)[...])
        #expect(
            try sentFrames(&machine).map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"ok":true,"id":7}"#])
    }

    @Test func aFailedTokenIsForwardedAndClosesWith1008() throws {
        var (machine, _) = upgraded(target: "/ws?token=wrong")
        machine.produce(
            from: Array(#"{"ok":false,"id":1,"error":{"code":"unauthenticated","message":"m"}}"#.utf8 + [10])[...])
        let frames = try sentFrames(&machine)
        #expect(frames.first?.opcode == .text)
        #expect(closeCode(frames) == 1008)
        #expect(machine.closesWhenSent)
    }

    @Test func aClosingConnectionEndsWithACloseFrameOnce() throws {
        var (machine, _) = upgraded()
        machine.finish(shuttingDown: true)
        machine.finish(shuttingDown: true)
        machine.produce(from: Array("{\"event\":\"late\"}\n".utf8)[...])
        let frames = try sentFrames(&machine)
        #expect(frames.map(\.opcode) == [.close])
        #expect(closeCode(frames) == 1001)
    }

    @Test func anInvalidUpgradeIsRefused() {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        machine.receive(Array("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        _ = machine.process(.serving)
        machine.produce(from: [])
        #expect(String(decoding: machine.pendingWire, as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
        #expect(!machine.isWebSocket)
    }
}
