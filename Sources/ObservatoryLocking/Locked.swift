#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a lock: read and change it from any thread.
///
/// Use it for state that handlers touch while observables deliver on
/// different threads:
///
/// ```swift
/// let received = Locked<[String]>([])
/// observer.observe(messenger) { message in
///     received.withLock { $0.append(message) }
/// }
/// ```
///
/// It offers what `Synchronization.Mutex` offers, on a lock that
/// ThreadSanitizer understands (see the note on why in the source), and
/// without requiring the value or the results to be `Sendable`: the value
/// never leaves the lock except as copies the caller asks for.
public final class Locked<Value>: @unchecked Sendable {
    /// The mutex and the value share one allocation, the value right after the
    /// mutex: taking the lock brings the value's first bytes into the cache, and
    /// a reader follows one pointer, not three (a lock object, its mutex, the value).
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Guarded by `mutex`. Behind a pointer, so that its accesses skip Swift's
    /// dynamic exclusivity checks; the lock already makes them exclusive.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// Creates a locked value.
    public init(_ value: Value) {
        let block = UnsafeMutableRawPointer.allocate(byteCount: Self.byteCount, alignment: Self.alignment)
        mutex = block.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        Lock.prepare(mutex)
        storage = (block + Self.valueOffset).initializeMemory(as: Value.self, repeating: value, count: 1)
    }

    deinit {
        storage.deinitialize(count: 1)
        Lock.dispose(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    /// Where the value starts in the block: after the mutex, aligned for the value.
    private static var valueOffset: Int {
        let end = MemoryLayout<pthread_mutex_t>.size
        let alignment = MemoryLayout<Value>.alignment
        return (end + alignment - 1) / alignment * alignment
    }

    private static var byteCount: Int {
        valueOffset + max(MemoryLayout<Value>.size, 1)
    }

    private static var alignment: Int {
        max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<Value>.alignment)
    }

    /// Runs `body` with the lock held, giving it the value to read or change.
    ///
    /// - Returns: What `body` returns.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try Lock.locked(mutex) { () throws(Failure) -> Result in try body(&storage.pointee) }
    }

    /// A copy of the current value.
    public var value: Value {
        withLock { $0 }
    }
}
