import ObservatoryClient
import ObservatoryServer

/// A real server on 127.0.0.1, in memory unless told otherwise, for the tests of
/// the server, the client and the command-line tool. It stops when `stop()` is
/// called or when the last reference to it goes, whichever comes first.
public final class TestServer: Sendable {
    /// The server.
    public let server: Server

    /// Starts a server with `configuration` (use port 0 for a free one).
    ///
    /// - Parameter storageOptions: overrides the storage options the configuration
    ///   implies (tests pass failing file operations this way).
    public init(configuration: ServerConfiguration, storageOptions: StorageOptions? = nil) throws {
        server = try Server(configuration: configuration, storageOptions: storageOptions)
        try server.start()
    }

    /// Starts a server on `port` (0: a free one), in memory, or storing in
    /// `dataDirectory` with fsync `always`.
    public convenience init(port: Int = 0, dataDirectory: String? = nil) throws {
        var configuration = Self.inMemoryConfiguration()
        configuration.port = port
        if let dataDirectory {
            configuration.fsync = .always
            configuration.dataDirectory = dataDirectory
        }
        try self.init(configuration: configuration)
    }

    /// The configuration of `init()`: a free port, in memory, a short grace;
    /// `adjust` changes it further (a limit under test, say).
    public static func inMemoryConfiguration(_ adjust: (inout ServerConfiguration) -> Void = { _ in })
        -> ServerConfiguration
    {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.fsync = .none
        configuration.shutdownGraceMilliseconds = 200
        adjust(&configuration)
        return configuration
    }

    deinit {
        // Idempotent: returns at once after an earlier `stop()`.
        server.stop()
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
