#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Waits, with `poll(2)`, until one of a few sockets is ready, a deadline passes, or
/// another thread calls `wake()`.
///
/// The waiter of a thread that serves a handful of sockets, such as the client
/// library's one connection: `poll` and a pipe exist on Linux and on every Apple
/// platform alike, where the server's epoll set does not. (`poll` looks at every
/// socket it is given on every wait, so a thread with thousands of them wants the
/// server's `Poller` instead.)
///
/// It keeps no list of sockets: each `wait` names the ones it watches and what for.
/// Its only state is the pipe through which `wake()` interrupts a wait: a byte
/// written to it makes the read end readable, and `wait` drains it.
///
/// Thread safety: `wake()` may be called from any thread, at any time; one thread
/// at a time calls `wait`.
public final class SocketWaiter: Sendable {
    /// Which readiness a socket is watched for.
    public struct Interest: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: UInt8

        /// Creates a set from its bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// Bytes to read, or end-of-file.
        public static let readable = Interest(rawValue: 1 << 0)
        /// Room to write.
        public static let writable = Interest(rawValue: 1 << 1)
    }

    /// One socket a `wait` watches, and what for.
    public struct Watch: Sendable, Hashable {
        /// The socket's file descriptor.
        public let descriptor: Int32
        /// What to wait for; a hang-up or an error is reported whatever it is.
        public let interest: Interest

        /// Watches `descriptor` for `interest`.
        public init(_ descriptor: Int32, for interest: Interest) {
            self.descriptor = descriptor
            self.interest = interest
        }
    }

    /// What one wait found for one watched socket that is ready.
    public struct Readiness: Sendable, Hashable {
        /// The socket's file descriptor.
        public let descriptor: Int32
        /// Bytes, end-of-file or an error wait to be read.
        public let readable: Bool
        /// The socket takes more bytes (or has failed, which a write will report).
        public let writable: Bool
        /// The connection is closed both ways, failed, or is no open descriptor.
        public let hungUp: Bool
    }

    /// What ended one wait.
    public struct Outcome: Sendable, Hashable {
        /// `wake()` was called since the previous wait (or during this one).
        public let woken: Bool
        /// The watched sockets that are ready, in the order they were watched.
        public let ready: [Readiness]
    }

    /// The pipe's end that `wait` watches and drains.
    private let wakeReader: Int32
    /// The pipe's end that `wake()` writes a byte to.
    private let wakeWriter: Int32

    /// Creates the wake-up pipe, non-blocking and closed on exec at both ends.
    ///
    /// - Throws: `SocketError` when the process is out of file descriptors.
    public init() throws(SocketError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SocketError.lastError("pipe") }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// Makes a current or the next `wait` return, reporting `woken`; safe from any thread.
    ///
    /// Wake-ups do not count: several before a wait end that one wait only. (When the
    /// pipe is full, the write is dropped: a wake-up is pending already.)
    public func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    /// Waits until a watched socket is ready, `wake()` is called, or
    /// `timeoutMilliseconds` pass (-1: no limit, 0: only look), whichever comes first.
    ///
    /// A signal that interrupts the wait ends it early with nothing ready, like a timeout.
    ///
    /// - Parameter watches: the sockets to watch; none makes the wait a sleep that
    ///   `wake()` can end.
    /// - Throws: `SocketError` when `poll` fails for another reason than a signal.
    public func wait(for watches: [Watch], timeoutMilliseconds: Int32) throws(SocketError) -> Outcome {
        var requests = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        for watch in watches {
            var events: Int16 = 0
            if watch.interest.contains(.readable) { events |= Int16(POLLIN) }
            if watch.interest.contains(.writable) { events |= Int16(POLLOUT) }
            requests.append(pollfd(fd: watch.descriptor, events: events, revents: 0))
        }
        let count = poll(&requests, nfds_t(requests.count), timeoutMilliseconds)
        guard count >= 0 else {
            guard errno == EINTR else { throw SocketError.lastError("poll") }
            return Outcome(woken: false, ready: [])
        }
        let woken = requests[0].revents != 0
        if woken { drainWakeUps() }
        let failure = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        let ready = requests.dropFirst().filter { $0.revents != 0 }.map { request in
            let failed = request.revents & failure != 0
            return Readiness(
                descriptor: request.fd,
                readable: failed || request.revents & Int16(POLLIN) != 0,
                writable: failed || request.revents & Int16(POLLOUT) != 0,
                hungUp: failed)
        }
        return Outcome(woken: woken, ready: ready)
    }

    /// Reads every pending wake-up byte, so the next wait sleeps again.
    private func drainWakeUps() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(wakeReader, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
    }
}
