import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A refused connection's machine without sockets: bytes and time in, answers out.
@Suite struct ConnectionRefusalTests {
    private func receive(_ refusal: inout ConnectionRefusal, _ text: String, at now: UInt64 = 0)
        -> ConnectionRefusal.Action
    {
        Array(text.utf8).withUnsafeBytes { refusal.receive($0, now: now) }
    }

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    @Test func anHTTPClientGets503WithRetryAfterAndTheLimitNamed() {
        var refusal = ConnectionRefusal.overLimit(2, now: 0)
        #expect(receive(&refusal, "GET /heal") == ConnectionRefusal.Action())
        let action = receive(&refusal, "thz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = text(action.answer)
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(answer.contains("Retry-After: 1\r\n"))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(
            answer.hasSuffix(
                #""code":"limit_exceeded","message":"the server has its maximum of 2 connections (limits.maxConnections)"}}"#
            ))
        #expect(!action.closes)
    }

    @Test func aHeadRequestGetsThe503WithoutItsBody() {
        var refusal = ConnectionRefusal.overLimit(2, now: 0)
        let answer = text(receive(&refusal, "HEAD / HTTP/1.1\r\n").answer)
        #expect(answer.hasPrefix("HTTP/1.1 503 "))
        #expect(answer.hasSuffix("\r\n\r\n"))
    }

    @Test func aLineClientGetsLimitExceededWithNullID() throws {
        var refusal = ConnectionRefusal.overLimit(2, now: 0)
        let reply = try JSONValue.parse(receive(&refusal, #"{"op":"hello"}"# + "\n").answer)
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == "limit_exceeded")
    }

    @Test func aSilentClientGetsTheLineAnswerAtTheSniffDeadline() throws {
        var refusal = ConnectionRefusal.overLimit(2, now: 100)
        let deadline = 100 + ConnectionRefusal.sniffNanoseconds
        #expect(refusal.nextDeadline == deadline)
        #expect(refusal.timeReached(deadline - 1) == ConnectionRefusal.Action())
        let reply = try JSONValue.parse(refusal.timeReached(deadline).answer)
        #expect(reply["error"]?["code"] == "limit_exceeded")
    }

    @Test func afterTheAnswerInputIsDroppedAndTheLingerEnds() {
        var refusal = ConnectionRefusal.overLimit(2, now: 0)
        _ = receive(&refusal, "GET / HTTP/1.1\r\n", at: 10)
        #expect(receive(&refusal, "more bytes", at: 20) == ConnectionRefusal.Action())
        #expect(refusal.bufferedByteCount == 0)
        let end = 10 + ConnectionRefusal.lingerNanoseconds
        #expect(refusal.nextDeadline == end)
        #expect(refusal.timeReached(end) == ConnectionRefusal.Action(closes: true))
        #expect(refusal.nextDeadline == nil)
    }

    @Test func aClientThatHangsUpFirstIsAnsweredAndClosed() {
        var refusal = ConnectionRefusal.overLimit(2, now: 0)
        let action = refusal.inputEnded()
        #expect(action.closes)
        #expect(text(action.answer).contains("limit_exceeded"))
    }

    @Test func duringShutdownHTTPGets503WithoutRetryAfter() {
        var refusal = ConnectionRefusal(
            error: WireError(code: .shuttingDown, message: "the server is shutting down"), now: 0)
        let answer = text(receive(&refusal, "GET / HTTP/1.1\r\n").answer)
        #expect(answer.hasPrefix("HTTP/1.1 503 "))
        #expect(!answer.contains("Retry-After"))
        #expect(answer.contains("shutting_down"))
    }
}
