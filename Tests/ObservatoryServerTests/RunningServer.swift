import Foundation

@testable import ObservatoryServer

/// A started in-process server on a free loopback port, stopped when the test is done.
final class RunningServer {
    let server: Server

    init(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws {
        server = try Server(configuration: testConfiguration(adjust))
        try server.start()
    }

    deinit {
        server.stop()
    }

    var port: Int { server.port }

    func client() throws -> LineClient {
        try LineClient(port: server.port)
    }
}
