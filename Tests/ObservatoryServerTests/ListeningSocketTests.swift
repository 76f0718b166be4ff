import Glibc
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

@Suite struct ListeningSocketTests {
    private func option(_ descriptor: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, level, name, &value, &size)
        return value
    }

    private func acceptOne() throws -> (client: StreamSocket, accepted: Int32) {
        let listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try StreamSocket.connect(host: "127.0.0.1", port: listener.port)
        return (client, try acceptConnection(from: listener, closingOnFailure: client))
    }

    @Test func acceptedConnectionsAreNonBlockingWithoutNagle() throws {
        let (client, accepted) = try acceptOne()
        defer {
            client.close()
            Glibc.close(accepted)
        }
        #expect(fcntl(accepted, F_GETFL, 0) & O_NONBLOCK != 0)
        #expect(option(accepted, Int32(IPPROTO_TCP), TCP_NODELAY) == 1)
    }

    /// A client that vanishes without closing must not hold its connection forever.
    @Test func acceptedConnectionsProbeSilentPeers() throws {
        let (client, accepted) = try acceptOne()
        defer {
            client.close()
            Glibc.close(accepted)
        }
        #expect(option(accepted, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(option(accepted, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 60)
        #expect(option(accepted, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 10)
        #expect(option(accepted, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
    }
}
