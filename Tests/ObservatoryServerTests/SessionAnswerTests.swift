import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// How a connection's output carries out a session's answers: events wait while a
/// batch is answered, and go out after its replies or ahead of a `ping`'s reply.
@Suite struct SessionAnswerTests {
    private func harness() throws -> SessionHarness {
        SessionHarness(fixture: try SessionFixture(configuration: testConfiguration()))
    }

    /// What each message is: a reply's id, or an event's kind.
    private func kinds(_ messages: [JSONValue]) -> [JSONValue?] {
        messages.map { $0["id"] ?? $0["event"] }
    }

    @Test func eventsOfABatchGoOutAfterItsReplies() throws {
        let messages = try harness().send(
            #"{"op":"observe","key":"k","id":1}"#, #"{"op":"set","key":"k","value":1,"id":2}"#,
            #"{"op":"get","key":"k","id":3}"#)
        #expect(kinds(messages) == [1, 2, 3, "update"])
    }

    @Test func aFirstObserveInTheMiddleOfABatchHoldsTheEventsFromThereOn() throws {
        // Once the session's queued bytes are known, nothing is held before its first observe (no
        // event can come); the events after it wait as in any batch.
        let harness = try harness()
        #expect(kinds(try harness.send(#"{"op":"set","key":"k","value":0,"id":0}"#)) == [0])
        let messages = try harness.send(
            #"{"op":"set","key":"k","value":1,"id":1}"#, #"{"op":"observe","key":"k","id":2}"#,
            #"{"op":"set","key":"k","value":2,"id":3}"#, #"{"op":"get","key":"k","id":4}"#)
        #expect(kinds(messages) == [1, 2, 3, 4, "update"])
    }

    @Test func aSessionThatObservesNothingAnswersNothingMoreWhileItsOutputHoldsTooMuch() throws {
        let fixture = try SessionFixture(configuration: testConfiguration { $0.limits.maxQueuedBytes = 200 })
        let harness = SessionHarness(fixture: fixture)
        let frames = (1...12).map { #"{"op":"set","key":"k","value":\#($0),"id":\#($0)}"# + "\n" }
        harness.session.receive(Array(frames.joined().utf8))
        #expect(harness.session.output.answerFrames(of: harness.session) == .backlogged)
        let queued = harness.session.output.withQueue { $0.queuedBytes }
        // Nothing was sent: answering again queues nothing more.
        #expect(harness.session.output.answerFrames(of: harness.session) == .backlogged)
        #expect(harness.session.output.withQueue { $0.queuedBytes } == queued)
        var replies = try harness.pending()
        #expect(replies.count < 12)
        // Sent: answering goes on where it stopped, as often as the output drains.
        while harness.session.output.answerFrames(of: harness.session) == .backlogged {
            replies += try harness.pending()
        }
        replies += try harness.pending()
        #expect(replies.map { $0["id"] } == (1...12).map { .integer(Int64($0)) })
    }

    @Test func anEventOfTheLastFrameGoesOutBehindItsReply() throws {
        // The reply to the last frame held lets the held events go in the same step: behind it.
        let messages = try harness().send(
            #"{"op":"observe","key":"k","id":1}"#, #"{"op":"set","key":"k","value":1,"id":2}"#)
        #expect(kinds(messages) == [1, 2, "update"])
    }

    @Test func eventsNoLongerWaitOnceTheLastFrameIsAnswered() throws {
        let fixture = try SessionFixture(configuration: testConfiguration())
        let observer = SessionHarness(fixture: fixture)
        let writer = SessionHarness(fixture: fixture)
        #expect(kinds(try observer.send(#"{"op":"observe","key":"k","id":1}"#)) == [1])
        #expect(kinds(try writer.send(#"{"op":"set","key":"k","value":1,"id":2}"#)) == [2])
        // Queued at once, not held for a batch that has ended.
        #expect(kinds(try observer.pending()) == ["update"])
    }

    @Test func aPingsReplyComesAfterTheEventsItVouchesFor() throws {
        let messages = try harness().send(
            #"{"op":"observe","key":"k","id":1}"#, #"{"op":"set","key":"k","value":1,"id":2}"#,
            #"{"op":"ping","id":3}"#, #"{"op":"set","key":"k","value":2,"id":4}"#)
        #expect(kinds(messages) == [1, 2, "update", 3, 4, "update"])
    }
}
