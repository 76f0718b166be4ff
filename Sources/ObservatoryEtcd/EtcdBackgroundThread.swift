import Foundation
import ObservatoryLocking

/// A thread that runs one loop, can be woken from a pause and stopped, and is
/// joined when stopped: what the lease keeper and the watch share.
///
/// Thread safety: the flags live in a `Locked` box (a pthread mutex ThreadSanitizer understands); waiting happens on semaphores,
/// never with the lock held.
final class EtcdBackgroundThread: Sendable {
    private struct State: Sendable {
        var isStopping = false
        var isFinished = false
        var thread: pthread_t?
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`; `body` returns when `isStopping` says so.
    init(name: String, _ body: @escaping @Sendable (EtcdBackgroundThread) -> Void) {
        let thread = Thread { [self] in
            state.withLock { $0.thread = pthread_self() }
            body(self)
            state.withLock { $0.isFinished = true }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Whether `stop()` was called: the loop should return.
    var isStopping: Bool {
        state.withLock { $0.isStopping }
    }

    /// Pauses for `duration`, or less when `stop()` is called; returns whether still running.
    @discardableResult
    func pause(_ duration: Duration) -> Bool {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        return !isStopping
    }

    /// Ends the loop's current pause early, so that it looks again at what it has to do.
    func endPause() {
        wake.signal()
    }

    /// Asks the loop to return and waits until it has, unless called from the
    /// loop itself (from a callback), which then returns on its own afterwards.
    ///
    /// - Parameter interrupt: runs after the flag is set, to unblock the loop
    ///   (shut a socket down); called with no lock held.
    func stop(interrupt: () -> Void = {}) {
        let (alreadyStopping, isOwnThread, isFinished) = state.withLock { state in
            defer { state.isStopping = true }
            let own = state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (state.isStopping, own, state.isFinished)
        }
        interrupt()
        if !alreadyStopping { wake.signal() }
        guard !isOwnThread, !isFinished else { return }
        finished.wait()
        // Let any other thread waiting in `stop()` through as well.
        finished.signal()
    }
}
