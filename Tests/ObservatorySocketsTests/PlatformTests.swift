import Testing

@testable import ObservatorySockets

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The socket layer's platform file, as the rest of the layer relies on it.
@Suite(.timeLimit(.minutes(1))) struct PlatformTests {
    private func option(_ descriptor: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, level, name, &value, &size)
        return value
    }

    @Test func newSocketsAreNonBlockingAndClosedOnExec() throws {
        let descriptor = Platform.makeStreamSocket(family: AF_INET)
        try #require(descriptor >= 0)
        defer { Platform.close(descriptor) }
        #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(option(descriptor, SOL_SOCKET, SO_TYPE) == Platform.streamSocketType)
    }

    /// Were `SIGPIPE` raised, it would end the test process: the send must fail instead.
    @Test func sendingToAPeerThatLeftIsAnErrorAndNoSignal() throws {
        let pair = try LoopbackPair()
        defer { pair.client.close() }
        pair.accepted.close()
        let bytes = [UInt8](repeating: 1, count: 64 * 1024)
        var failure: SocketError?
        // The first sends may still be taken; the peer's reset then fails the next ones.
        for _ in 0..<1_000 where failure == nil {
            do {
                _ = try bytes.withUnsafeBytes { try pair.client.send($0) }
                _ = pair.client.waitReadable(timeoutMilliseconds: 10)
            } catch let error as SocketError {
                failure = error
            }
        }
        let error = try #require(failure)
        #expect([EPIPE, ECONNRESET].contains(error.errorNumber), "\(error)")
    }

    @Test func aPeerThatShutItsSideIsNoticedWhileBytesWaitUnread() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        #expect(!pair.client.hasPeerHungUp())
        try pair.accepted.sendAll(Array("unread".utf8))
        pair.accepted.shutdownWrite()
        let waiter = try SocketWaiter()
        _ = try waiter.wait(
            for: [SocketWaiter.Watch(pair.client.descriptor, for: .readable)], timeoutMilliseconds: 5_000)
        #if canImport(Glibc)
            #expect(pair.client.hasPeerHungUp(), "Linux reports POLLRDHUP")
        #endif
    }
}
