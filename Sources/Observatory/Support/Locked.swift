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
    @usableFromInline let lock = Lock()
    /// Guarded by `lock`. Behind a pointer, so that its accesses skip Swift's
    /// dynamic exclusivity checks; the lock already makes them exclusive.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// Creates a locked value.
    public init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the lock held, giving it the value to read or change.
    ///
    /// - Returns: What `body` returns.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.locked { () throws(Failure) -> Result in try body(&storage.pointee) }
    }

    /// A copy of the current value.
    public var value: Value {
        withLock { $0 }
    }
}
