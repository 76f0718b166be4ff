import ObservatoryWire

@testable import ObservatoryServer

/// A session wired to an output whose bytes the test reads directly: the protocol
/// without sockets. Answers are carried out as a connection carries them out.
struct SessionHarness {
    let fixture: SessionFixture
    let session: Session

    init(fixture: SessionFixture) {
        self.fixture = fixture
        let limits = fixture.configuration.limits
        let output = ConnectionOutput(
            maxQueuedBytes: limits.maxQueuedBytes, maxObservations: limits.maxObservationsPerConnection)
        session = Session(environment: fixture.environment, output: output)
    }

    /// Sends frames (an LF is added to each) and returns everything queued in reply.
    @discardableResult
    func send(_ frames: String...) throws -> [JSONValue] {
        try sendBytes(Array(frames.map { $0 + "\n" }.joined().utf8)).messages
    }

    /// Sends raw bytes; returns the session's decision and everything queued.
    func sendBytes(_ bytes: [UInt8]) throws -> (action: Session.Action, messages: [JSONValue]) {
        session.receive(bytes)
        let action = session.output.answerFrames(of: session)
        return (action, try session.output.drainMessages())
    }

    /// Everything queued since the last call (events from other sessions).
    func pending() throws -> [JSONValue] {
        try session.output.drainMessages()
    }
}
