import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Frames answered where a read left them (`Session.receiveInPlace`): cut as the
/// splitter cuts them, and what answering leaves is kept for the next answers.
@Suite struct SessionInPlaceTests {
    private func session(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> Session {
        SessionHarness(fixture: try SessionFixture(configuration: testConfiguration(adjust))).session
    }

    /// Hands `text` to the session in place, has it answer within `share`, and keeps the rest, as a read does.
    private func read(
        _ text: String, by session: Session, within share: ConnectionMachine.TurnShare = .unlimited
    ) -> Session.Action {
        Array(text.utf8).withUnsafeBytes { bytes in
            session.receiveInPlace(bytes)
            let action = session.output.answerFrames(of: session, within: share).action
            session.keepUnansweredInput()
            return action
        }
    }

    @Test func aReadsFramesAreAnsweredAndAnUnfinishedOneIsKeptForTheNextRead() throws {
        let session = try session()
        let first = #"{"op":"ping","id":1}"# + "\n" + #"{"op":"ping","id":2}"# + "\r\n\n" + #"{"op":"pi"#
        #expect(read(first, by: session) == .keepOpen)
        #expect(read(#"ng","id":3}"# + "\n" + #"{"op":"ping","id":4}"# + "\n", by: session) == .keepOpen)
        #expect(try session.output.drainMessages().map { $0["id"] } == [1, 2, 3, 4])
        #expect(session.unfinishedInputByteCount == 0)
    }

    @Test func framesLeftWhenTheShareIsUsedUpAreAnsweredNext() throws {
        let session = try session()
        let frames = (1...3).map { #"{"op":"ping","id":\#($0)}"# + "\n" }.joined()
        #expect(
            read(frames, by: session, within: ConnectionMachine.TurnShare(requests: 1, nanoseconds: .max)) == .keepOpen)
        #expect(try session.output.drainMessages().map { $0["id"] } == [1])
        #expect(session.unfinishedInputByteCount > 0)
        #expect(session.output.answerFrames(of: session) == .keepOpen)
        #expect(try session.output.drainMessages().map { $0["id"] } == [2, 3])
    }

    @Test func aFrameOverTheLimitIsRefusedAndTheConnectionClosed() throws {
        let session = try session { $0.limits.maxFrameBytes = 64 }
        let long = #"{"op":"set","key":"k","value":"\#(String(repeating: "x", count: 80))"}"# + "\n"
        #expect(read(#"{"op":"ping","id":1}"# + "\n" + long + #"{"op":"ping","id":2}"# + "\n", by: session) == .close)
        let messages = try session.output.drainMessages()
        #expect(messages.map { $0["id"] } == [1, .null])
        #expect(messages.last?["error"]?["code"] == "frame_too_large")
    }
}
