import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// `waitUntilSynchronized(timeout:)` against a stand-in server that takes the
/// hello and never answers: no state change comes, so only the deadline on the
/// client's state-change gate ends the wait, and the I/O thread, sleeping until
/// the gate's next deadline, must wake for it.
@Suite(.timeLimit(.minutes(1))) struct SynchronizedTimeoutEndToEndTests {
    @Test func aWaitForSyncTimesOutAtItsDeadlineThoughNothingElseIsDue() async throws {
        let peer = try LoopbackPeer()
        var configuration = ClientConfiguration(port: peer.port, name: "probe")
        // The phases' own bounds are far off: the I/O thread's usual turn is 15 s.
        configuration.connectTimeout = .seconds(60)
        configuration.pingInterval = .seconds(60)
        configuration.pingTimeout = .seconds(60)
        let client = ObservatoryClient(configuration: configuration)
        defer { client.close() }
        try await peer.accept()
        #expect(await peer.receiveLine()?.contains("\"op\":\"hello\"") == true)
        let timeout = Duration.milliseconds(300)
        let started = ContinuousClock.now
        var failure: ClientError?
        do {
            try await client.waitUntilSynchronized(timeout: timeout)
        } catch {
            failure = error
        }
        let elapsed = ContinuousClock.now - started
        #expect(failure?.code == .timedOut, "\(String(describing: failure))")
        #expect(elapsed >= timeout)
        // Well before the next turn the phases would ask for; generous for a loaded machine.
        #expect(elapsed < .seconds(5), "timed out after \(elapsed)")
        #expect(client.currentState == .connecting, "still in the hello phase")
    }
}
