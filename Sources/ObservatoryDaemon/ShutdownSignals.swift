import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGTERM and SIGINT into a call of a handler, so the daemon can shut down
/// gracefully instead of dying mid-write, and never misses one.
///
/// Creating the value blocks the signals in the calling thread, and so in every
/// thread started from it afterwards; `handle(_:)` then starts one thread that
/// takes them with `sigtimedwait`. A blocked signal stays pending until it is
/// taken, so a SIGTERM that arrives while the daemon is still starting is handled
/// as soon as the handler is in place. (Dispatch signal sources lost such a
/// signal: they ignore it first and are armed a moment later.)
///
///     let signals = ShutdownSignals()        // first, on the main thread
///     let server = try Server(configuration: configuration)
///     try server.start()
///     signals.handle { _ in server.stop() }
///
/// ## Locking
/// Only the cancellation flag is shared between threads; it is an `Atomic`.
public final class ShutdownSignals: Sendable {
    /// The signals handled.
    public let signals: [Int32]
    private let isCancelled = Atomic<Bool>(false)

    /// Blocks `signals` in this thread and the threads it starts from now on.
    /// Create it on the main thread before anything starts threads.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        self.signals = signals
        var set = Self.set(of: signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the thread that calls `handler` with each signal taken, including
    /// any that arrived since `init`. Call it once.
    public func handle(_ handler: @escaping @Sendable (Int32) -> Void) {
        let waiter = Thread { [self] in
            var set = Self.set(of: signals)
            // Wakes up now and then to notice `cancel()`.
            var interval = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            while !isCancelled.load(ordering: .acquiring) {
                let number = sigtimedwait(&set, nil, &interval)
                if number > 0 { handler(number) }
            }
        }
        waiter.name = "observatoryd signals"
        waiter.start()
    }

    /// Stops handling within a tenth of a second; the signals stay blocked.
    public func cancel() {
        isCancelled.store(true, ordering: .releasing)
    }

    private static func set(of signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }

    /// The name of a signal for log lines (`SIGTERM`), or its number.
    public static func name(of number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}
