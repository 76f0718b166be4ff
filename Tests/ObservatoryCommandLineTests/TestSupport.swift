import Foundation
import ObservatoryClient
import ObservatoryServer

#if canImport(Glibc)
import Glibc
#endif

/// A real server on 127.0.0.1, on a free port and in memory, for the commands to talk to.
final class TestServer: Sendable {
    let server: Server

    init() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.fsync = .none
        configuration.shutdownGraceMilliseconds = 200
        server = try Server(configuration: configuration)
        try server.start()
    }

    var port: Int { server.port }

    func stop() { server.stop() }

    /// A connected client of this server, to make the changes a command sees.
    func client(_ name: String) async throws -> ObservatoryClient {
        try await ObservatoryClient.connect(ClientConfiguration(host: "127.0.0.1", port: port, name: name), timeout: .seconds(20))
    }
}

/// A loopback port that refuses every connection for as long as this value lives:
/// bound but never listened on, so no other test can take it meanwhile (as it
/// could once a listener closed).
final class RefusingPort: Sendable {
    let port: Int
    private let descriptor: Int32

    struct SetupFailure: Error, CustomStringConvertible {
        let errorNumber: Int32
        var description: String { "cannot bind a loopback port: errno \(errorNumber)" }
    }

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw SetupFailure(errorNumber: errno) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
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
