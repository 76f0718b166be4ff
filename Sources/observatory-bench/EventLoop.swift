import CEpoll

#if canImport(Glibc)
import Glibc
#endif

/// One epoll set over the load driver's sockets plus a timerfd, waited on by a
/// single thread.
///
/// epoll rather than `poll(2)`: with 1,001 sockets, `poll` makes the kernel look
/// at every one on every wait, while epoll hands back only the ready ones. The
/// timerfd paces a writer to the microsecond, where `poll`'s millisecond timeout
/// would bunch paced writes into bursts.
final class EventLoop {
    /// What one wait found for one registered descriptor.
    struct Readiness {
        /// The token the descriptor was registered with.
        let token: Int
        /// Bytes (or end-of-file, or an error) wait to be read.
        let readable: Bool
        /// The socket takes more bytes.
        let writable: Bool
    }

    /// The token under which the timer reports; sockets use their index (≥ 0).
    static let timerToken = -1

    private let epoll: Int32
    private let timer: Int32
    private var events: [epoll_event]
    private var timerDeadline: UInt64 = 0

    /// - Parameter batch: the most readiness reports one wait hands back.
    init(batch: Int = 1_024) throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw BenchError("epoll_create1 failed: errno \(errno)") }
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        guard timer >= 0 else {
            close(epoll)
            throw BenchError("timerfd_create failed: errno \(errno)")
        }
        events = Array(repeating: epoll_event(), count: batch)
        try control(EPOLL_CTL_ADD, timer, token: Self.timerToken, writable: false)
    }

    deinit {
        close(timer)
        close(epoll)
    }

    /// Watches `descriptor` for input, reporting it under `token`.
    func add(_ descriptor: Int32, token: Int) throws {
        try control(EPOLL_CTL_ADD, descriptor, token: token, writable: false)
    }

    /// Starts or stops watching `descriptor` for room to write (only while output is pending).
    func watchWritable(_ descriptor: Int32, token: Int, _ wanted: Bool) throws {
        try control(EPOLL_CTL_MOD, descriptor, token: token, writable: wanted)
    }

    /// Makes the timer report at `deadline` (monotonic nanoseconds); a later call replaces it.
    func wakeUp(at deadline: UInt64) {
        guard deadline != timerDeadline else { return }
        timerDeadline = deadline
        let seconds = Int(deadline / 1_000_000_000)
        let nanoseconds = Int(deadline % 1_000_000_000)
        var setting = itimerspec(it_interval: timespec(), it_value: timespec(tv_sec: seconds, tv_nsec: nanoseconds))
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    /// Waits at most `timeoutMilliseconds` and calls `body` for each ready socket;
    /// a timer expiry is consumed here and only ends the wait.
    func wait(timeoutMilliseconds: Int32, _ body: (Readiness) throws -> Void) throws {
        let count = epoll_wait(epoll, &events, Int32(events.count), timeoutMilliseconds)
        guard count >= 0 else {
            guard errno == EINTR else { throw BenchError("epoll_wait failed: errno \(errno)") }
            return
        }
        for index in 0..<Int(count) {
            let event = events[index]
            let token = Int(truncatingIfNeeded: Int64(bitPattern: event.data.u64))
            if token == Self.timerToken {
                consumeTimer()
                continue
            }
            let flags = event.events
            let failed = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            try body(Readiness(
                token: token,
                readable: failed || flags & EPOLLIN.rawValue != 0,
                writable: flags & EPOLLOUT.rawValue != 0))
        }
    }

    private func consumeTimer() {
        var expirations: UInt64 = 0
        _ = read(timer, &expirations, MemoryLayout<UInt64>.size)
        timerDeadline = 0
    }

    private func control(_ operation: Int32, _ descriptor: Int32, token: Int, writable: Bool) throws {
        let interest = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        var event = epoll_event(events: interest, data: epoll_data_t(u64: UInt64(bitPattern: Int64(token))))
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else {
            throw BenchError("epoll_ctl failed: errno \(errno)")
        }
    }
}
