import Testing

@testable import ObservatoryHTTP

@Suite struct ServerSentEventTests {
    @Test func anEventHasItsIdTypeAndData() {
        let event = ServerSentEvent(id: "e1:42", event: "update", data: "{\"key\":\"sky\"}")
        #expect(text(event.encoded()) == "id: e1:42\nevent: update\ndata: {\"key\":\"sky\"}\n\n")
    }

    @Test func dataWithLineBreaksBecomesSeveralDataLines() {
        let event = ServerSentEvent(data: "a\nb\r\nc\rd")
        #expect(text(event.encoded()) == "data: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(text(ServerSentEvent(data: "end\n").encoded()) == "data: end\ndata: \n\n")
    }

    @Test func emptyDataIsOneEmptyDataLine() {
        #expect(text(ServerSentEvent(data: "").encoded()) == "data: \n\n")
    }

    @Test func lineBreaksInIdAndTypeCannotAddFields() {
        let event = ServerSentEvent(id: "1\ndata: x\u{0}", event: "a\r\nretry: 1", data: "d")
        #expect(text(event.encoded()) == "id: 1data: x\nevent: aretry: 1\ndata: d\n\n")
    }

    @Test func retryIsWrittenInMilliseconds() {
        #expect(text(ServerSentEvent(data: "x", retryMilliseconds: 3000).encoded()) == "retry: 3000\ndata: x\n\n")
    }

    @Test func aCommentIsALineClientsIgnore() {
        #expect(text(ServerSentEvent.comment("keepalive")) == ": keepalive\n")
        #expect(text(ServerSentEvent.comment("a\nb")) == ": a\n: b\n")
    }
}
