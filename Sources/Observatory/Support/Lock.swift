#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock on a POSIX mutex.
///
/// Why not `Synchronization.Mutex`: on Linux, as of Swift 6.3, ThreadSanitizer
/// cannot see `Mutex`'s locking, so every access it guards is reported as a
/// data race and real races drown in the noise. The sanitizer understands
/// POSIX mutexes, and they cost the same here (about 6 ns to lock and unlock
/// without contention).
@usableFromInline
final class Lock: @unchecked Sendable {
    /// Allocated once and never moved, as POSIX requires of a mutex.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and returns its result.
    @inlinable
    func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
