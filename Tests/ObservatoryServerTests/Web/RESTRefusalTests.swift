import ObservatoryHTTP
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// What the web face answers by itself, without the session: counted, and with words that help.
@Suite struct RESTRefusalTests {
    private func put(_ body: String) -> (HTTPConnectionMachine.Step, String) {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        machine.receive(
            Array("PUT /v1/keys/sky.color HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        let step = machine.process(.serving)
        machine.produce(from: [][...])
        return (step, String(decoding: machine.pendingWire, as: UTF8.self))
    }

    @Test func aBadFrameAnsweredWithoutTheSessionIsCountedForMetrics() {
        let (step, response) = put("{\"a\":")
        #expect(response.hasPrefix("HTTP/1.1 400 "))
        #expect(step.errorCodes == [.badFrame])
    }

    @Test func anUnquotedStringBodyGetsTheHintToQuoteIt() {
        let (_, response) = put("red")
        #expect(response.contains("bad_frame"))
        #expect(response.contains("a string goes in double quotes"))
        let (_, broken) = put("[1,")
        #expect(!broken.contains("a string goes in double quotes"))
    }

    @Test func anUnknownPathIsCountedAsNotFound() {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        machine.receive(Array("GET /nowhere HTTP/1.1\r\n\r\n".utf8))
        #expect(machine.process(.serving).errorCodes == [.notFound])
    }
}
