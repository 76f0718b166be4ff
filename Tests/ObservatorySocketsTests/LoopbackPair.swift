import Testing

@testable import ObservatorySockets

/// Two ends of one TCP connection on loopback, made with the socket layer itself:
/// the listener's side is accepted once a `SocketWaiter` reports the listener readable.
struct LoopbackPair {
    /// The side that connected (non-blocking).
    let client: StreamSocket
    /// The listener's side of the same connection (non-blocking).
    let accepted: StreamSocket

    init() throws {
        let listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try StreamSocket.connect(host: "127.0.0.1", port: listener.port)
        do {
            let waiter = try SocketWaiter()
            let outcome = try waiter.wait(
                for: [SocketWaiter.Watch(listener.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
            #expect(outcome.ready.map(\.descriptor) == [listener.descriptor], "the connection reached the listener")
            guard let descriptor = try listener.accept() else {
                throw SocketError(operation: "accept", errorNumber: 0, detail: "no connection was pending")
            }
            self.client = client
            self.accepted = StreamSocket(descriptor: descriptor)
        } catch {
            client.close()
            throw error
        }
    }

    /// Closes both ends.
    func close() {
        client.close()
        accepted.close()
    }
}
