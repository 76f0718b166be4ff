import Glibc
import Testing

@testable import ObservatorySockets

/// The client side of `StreamSocket`: connecting, blocking mode, bounded sends, resets.
@Suite struct StreamSocketTests {
    /// A connected pair on loopback: `client` connected with `blocking`, `accepted` the listener's side.
    private func connectedPair(blocking: Bool) throws -> (client: StreamSocket, accepted: StreamSocket) {
        let listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try StreamSocket.connect(host: "127.0.0.1", port: listener.port, blocking: blocking)
        return (client, StreamSocket(descriptor: try acceptConnection(from: listener, closingOnFailure: client)))
    }

    @Test func blockingModeLeavesTheSocketBlockingWithoutNagle() throws {
        let (client, accepted) = try connectedPair(blocking: true)
        defer {
            client.close()
            accepted.close()
        }
        #expect(fcntl(client.descriptor, F_GETFL, 0) & O_NONBLOCK == 0)
        var noDelay: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(client.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &size)
        #expect(noDelay == 1)
    }

    @Test func aHostResolvesToEveryAddressAndAFailureNamesTheEndpoint() throws {
        let addresses = try SocketAddress.resolve(host: "127.0.0.1", port: 7070, for: "connect to 127.0.0.1:7070")
        #expect(addresses.map(\.family) == [AF_INET])
        let error = #expect(throws: SocketError.self) {
            _ = try StreamSocket.connect(host: "no such host.invalid", port: 7070, timeoutMilliseconds: 1_000)
        }
        #expect(
            error?.description.hasPrefix("connect to no such host.invalid:7070 failed: cannot resolve the host") == true
        )
    }

    /// A blocking socket's writer waits at most the deadline for a peer that stopped reading.
    @Test func sendAllOnABlockingSocketGivesUpAfterItsDeadline() throws {
        let (client, accepted) = try connectedPair(blocking: true)
        defer {
            client.close()
            accepted.close()
        }
        let start = ContinuousClock.now
        let error = #expect(throws: SocketError.self) {
            try client.sendAll([UInt8](repeating: 7, count: 64 << 20), timeoutMilliseconds: 200)
        }
        #expect(error?.errorNumber == ETIMEDOUT)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func aResetIsAnErrorOnlyWhenAsked() throws {
        for resetIsError in [false, true] {
            let (client, accepted) = try connectedPair(blocking: true)
            defer { client.close() }
            // Linger 0: close sends a reset instead of end-of-file.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(
                accepted.descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            accepted.close()
            var buffer = [UInt8](repeating: 0, count: 16)
            let outcome = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SocketError) in try client.receive(into: bytes, resetIsError: resetIsError) }
            }
            if resetIsError {
                #expect(throws: SocketError(operation: "recv", errorNumber: ECONNRESET)) { try outcome.get() }
            } else {
                #expect(try outcome.get() == .closed)
            }
        }
    }
}
