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
///
/// `package`, not public: the modules of this package share it (the core's
/// messengers, ``Locked``); programs use ``Locked``.
@usableFromInline
package final class Lock: @unchecked Sendable {
    /// Allocated once and never moved, as POSIX requires of a mutex.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    package init() {
        mutex = .allocate(capacity: 1)
        Self.prepare(mutex)
    }

    deinit {
        Self.dispose(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and returns its result.
    @inlinable
    package func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try Self.locked(mutex, body)
    }

    // The mutex calls, shared with `Locked`, which keeps its mutex in the same
    // allocation as its value instead of in a `Lock`.

    /// Initializes a mutex in memory that will not move while it is in use.
    package static func prepare(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    /// Destroys a mutex made by ``prepare(_:)``; its memory stays the caller's.
    package static func dispose(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
    }

    /// Runs `body` with `mutex` held and returns its result.
    @inlinable
    package static func locked<Result, Failure: Error>(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
