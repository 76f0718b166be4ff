import ObservatoryWire

@testable import ObservatoryServer

/// A session wired to an output whose bytes the test reads directly: the protocol
/// without sockets.
struct SessionHarness {
    let context: ServerContext
    let session: Session

    init(context: ServerContext) {
        self.context = context
        let limits = context.configuration.limits
        let output = ConnectionOutput(
            maxQueuedBytes: limits.maxQueuedBytes, maxObservations: limits.maxObservationsPerConnection,
            requestFlush: {})
        session = Session(context: context, output: output)
    }

    /// Sends frames (an LF is added to each) and returns everything queued in reply.
    @discardableResult
    func send(_ frames: String...) throws -> [JSONValue] {
        try sendBytes(Array(frames.map { $0 + "\n" }.joined().utf8)).messages
    }

    /// Sends raw bytes; returns the session's decision and everything queued.
    func sendBytes(_ bytes: [UInt8]) throws -> (action: Session.Action, messages: [JSONValue]) {
        let action = session.receive(bytes)
        return (action, try session.output.drainMessages())
    }

    /// Everything queued since the last call (events from other sessions).
    func pending() throws -> [JSONValue] {
        try session.output.drainMessages()
    }
}
