import ObservatoryLogging

@testable import ObservatoryServer

/// A store and the environment its sessions are made in, built as a server builds
/// them, for tests of sessions and storage without sockets.
struct SessionFixture {
    let configuration: ServerConfiguration
    let store: SharedStore
    let environment: SessionEnvironment

    init(configuration: ServerConfiguration, logger: Logger = .silent, storageOptions: StorageOptions? = nil) throws {
        self.configuration = configuration
        store = try SharedStore.open(configuration: configuration, logger: logger, storageOptions: storageOptions)
        environment = SessionEnvironment(configuration: configuration, store: store, logger: logger)
    }
}
