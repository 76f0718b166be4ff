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

    /// A new connection; a small `receiveBufferBytes` makes a client that stops reading fill up quickly.
    func client(receiveBufferBytes: Int32? = nil) throws -> LineClient {
        try LineClient(port: server.port, receiveBufferBytes: receiveBufferBytes)
    }
}
