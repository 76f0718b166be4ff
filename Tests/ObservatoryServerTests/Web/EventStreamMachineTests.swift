import ObservatoryHTTP
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The web face's machine for `GET /events`, without sockets (HTTP/1.0 here, so
/// the stream is not chunked and reads as plain text).
@Suite struct EventStreamMachineTests {
    private func started(_ request: String) -> (HTTPConnectionMachine, String) {
        var machine = HTTPConnectionMachine(epoch: "e1", maxFrameBytes: 1_024)
        machine.receive(Array(request.utf8))
        let frames = String(decoding: machine.process(.serving).sessionBytes, as: UTF8.self)
        return (machine, frames)
    }

    private func drain(_ machine: inout HTTPConnectionMachine, _ queued: String) -> String {
        machine.produce(from: Array(queued.utf8)[...])
        defer { machine.markSent(machine.pendingWire.count) }
        return String(decoding: machine.pendingWire, as: UTF8.self)
    }

    @Test func aStreamStartsWithTheObserveReplyAsSnapshot() {
        var (machine, frames) = started("GET /events?prefix=sky. HTTP/1.0\r\n\r\n")
        #expect(frames == #"{"op":"observe","id":1,"prefix":"sky."}"# + "\n")
        let text = drain(&machine, #"{"ok":true,"id":1,"values":[],"revision":4}"# + "\n")
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Type: text/event-stream"))
        #expect(text.hasSuffix("\r\n\r\nevent: snapshot\ndata: {\"values\":[],\"revision\":4}\n\n"))
        #expect(machine.isEventStream && !machine.wantsToClose)
    }

    @Test func eachChangeHasTheEpochAndVersionAsIDAndTheEventAsData() {
        var (machine, _) = started("GET /events?key=sky.color HTTP/1.0\r\n\r\n")
        _ = drain(&machine, #"{"ok":true,"id":1,"values":[],"revision":0}"# + "\n")
        let event = #"{"event":"update","key":"sky.color","new":"red","version":5,"author":"a","session":"s1"}"#
        #expect(drain(&machine, event + "\n") == "id: e1:5\nevent: update\ndata: \(event)\n\n")
        let deletion = #"{"event":"delete","key":"sky.color","old":"red","version":6,"author":"a","session":"s1"}"#
        #expect(drain(&machine, deletion + "\n") == "id: e1:6\nevent: delete\ndata: \(deletion)\n\n")
    }

    @Test func aSlowStreamAsksForCloseAndItsErrorsRevisionIsTheIDTheBrowserResumesFrom() {
        var (machine, frames) = started("GET /events?prefix=sky.&slow=close HTTP/1.0\r\n\r\n")
        #expect(frames == #"{"op":"observe","id":1,"prefix":"sky.","slow":"close"}"# + "\n")
        _ = drain(&machine, #"{"ok":true,"id":1,"values":[],"revision":0}"# + "\n")
        let error = #"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"behind","revision":8}}"#
        #expect(drain(&machine, error + "\n") == "id: e1:8\nevent: error\ndata: \(error)\n\n")
    }

    @Test func lastEventIDResumesAndAFailedResumeIsAReset() {
        var (machine, frames) = started("GET /events?prefix=a HTTP/1.0\r\nLast-Event-ID: e1:7\r\n\r\n")
        #expect(frames == #"{"op":"observe","id":1,"prefix":"a","fromRevision":7,"epoch":"e1"}"# + "\n")
        let reset = drain(&machine, #"{"ok":true,"id":1,"resumed":false,"revision":9,"values":[]}"# + "\n")
        #expect(reset.hasSuffix("event: reset\ndata: {\"revision\":9,\"values\":[]}\n\n"))

        var (resumed, _) = started("GET /events?prefix=a HTTP/1.0\r\nLast-Event-ID: e1:7\r\n\r\n")
        let text = drain(&resumed, #"{"ok":true,"id":1,"values":[],"revision":9,"resumed":true}"# + "\n")
        #expect(!text.contains("event:"))
    }

    @Test func aLastEventIDOfAnotherFormIsAReset() {
        var (machine, frames) = started("GET /events?prefix=a HTTP/1.0\r\nLast-Event-ID: seven\r\n\r\n")
        #expect(frames == #"{"op":"observe","id":1,"prefix":"a"}"# + "\n")
        #expect(drain(&machine, #"{"ok":true,"id":1,"values":[],"revision":9}"# + "\n").contains("event: reset\n"))
    }

    @Test func aRefusedObserveIsAnErrorResponse() {
        var (machine, _) = started("GET /events?prefix=a HTTP/1.1\r\n\r\n")
        let text = drain(&machine, #"{"ok":false,"id":1,"error":{"code":"forbidden","message":"m"}}"# + "\n")
        #expect(text.hasPrefix("HTTP/1.1 403 "))
        #expect(machine.closesWhenSent)
    }

    @Test func neitherOrBothOfKeyAndPrefixIs400() {
        for target in ["/events", "/events?key=a&prefix=b"] {
            var (machine, frames) = started("GET \(target) HTTP/1.1\r\n\r\n")
            #expect(frames.isEmpty)
            #expect(drain(&machine, "").hasPrefix("HTTP/1.1 400 "))
        }
    }

    @Test func aChunkedStreamKeepsAliveWithCommentsAndEndsWithTheLastChunk() {
        var (machine, _) = started("GET /events?prefix=a HTTP/1.1\r\n\r\n")
        _ = drain(&machine, #"{"ok":true,"id":1,"values":[],"revision":0}"# + "\n")
        let kept = machine.keepStreamAlive()
        #expect(kept)
        #expect(drain(&machine, "") == "d\r\n: keep-alive\n\r\n")
        machine.finish(shuttingDown: true)
        #expect(drain(&machine, "") == "0\r\n\r\n")
    }
}
