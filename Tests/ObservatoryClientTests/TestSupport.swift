import Foundation
import Observatory
import ObservatoryClient
import ObservatoryServer

/// A real server on 127.0.0.1, in memory, for end-to-end tests.
final class TestServer: Sendable {
    let server: Server

    /// Starts a server on `port` (0: a free one), in memory, or storing in `dataDirectory`.
    init(port: Int = 0, dataDirectory: String? = nil) throws {
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.fsync = .none
        if let dataDirectory {
            configuration.fsync = .always
            configuration.dataDirectory = dataDirectory
        }
        configuration.shutdownGraceMilliseconds = 200
        server = try Server(configuration: configuration)
        try server.start()
    }

    var port: Int { server.port }

    func stop() { server.stop() }

    /// A client configuration for this server with quick reconnects and pings.
    func clientConfiguration(name: String) -> ClientConfiguration {
        var configuration = ClientConfiguration(host: "127.0.0.1", port: port, name: name)
        configuration.backoff = ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
        configuration.pingInterval = .milliseconds(500)
        configuration.pingTimeout = .seconds(10)
        return configuration
    }

    /// A connected, synchronized client.
    func client(_ name: String) async throws -> ObservatoryClient {
        try await ObservatoryClient.connect(clientConfiguration(name: name), timeout: .seconds(20))
    }
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Records every message an observable sends, with its author, from any thread.
final class Recorder<Message: Sendable>: Observer, Sendable {
    let receiver = Receiver()
    private let recorded = Locked<[(message: Message, author: ObjectIdentifier, peer: Peer?, reset: Reset?)]>([])

    /// Records every message of `observable`.
    func record<O: ObservableObject>(_ observable: O) where O.Message == Message {
        observe(observable) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    /// Records the messages of `observable` that `excluded` did not author.
    func record<O: ObservableObject>(_ observable: O, notFrom excluded: AnyAuthor) where O.Message == Message {
        observe(observable).notFrom(excluded) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    private func append(_ message: Message, _ author: AnyAuthor) {
        let entry = (message, ObjectIdentifier(author), author as? Peer, author as? Reset)
        recorded.withLock { $0.append(entry) }
    }

    var messages: [Message] { recorded.withLock { $0.map(\.message) } }
    /// The authors that were Peers (nil for other authors).
    var peers: [Peer?] { recorded.withLock { $0.map(\.peer) } }
    var authors: [ObjectIdentifier] { recorded.withLock { $0.map(\.author) } }
    /// The authors that were Resets (nil for other authors).
    var resets: [Reset?] { recorded.withLock { $0.map(\.reset) } }
    var count: Int { recorded.withLock { $0.count } }
}

/// A thread-safe flag that tests raise from any thread.
final class Flag: Sendable {
    private let raised = Locked(false)
    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}
