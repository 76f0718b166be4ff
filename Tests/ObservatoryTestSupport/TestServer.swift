import ObservatoryClient
import ObservatoryServer

/// A real server on 127.0.0.1, in memory unless told otherwise, for the tests
/// of the client and of the command-line tool.
public final class TestServer: Sendable {
    /// The server.
    public let server: Server

    /// Starts a server on `port` (0: a free one), in memory, or storing in
    /// `dataDirectory` with fsync `always`.
    public init(port: Int = 0, dataDirectory: String? = nil) throws {
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

    /// The port it listens on.
    public var port: Int { server.port }

    /// Stops the server.
    public func stop() { server.stop() }

    /// A client configuration for this server with quick reconnects and pings.
    public func clientConfiguration(name: String) -> ClientConfiguration {
        var configuration = ClientConfiguration(host: "127.0.0.1", port: port, name: name)
        configuration.backoff = ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
        configuration.pingInterval = .milliseconds(500)
        configuration.pingTimeout = .seconds(10)
        return configuration
    }

    /// A connected, synchronized client.
    public func client(_ name: String) async throws -> ObservatoryClient {
        try await ObservatoryClient.connect(clientConfiguration(name: name), timeout: .seconds(20))
    }
}
