import Dispatch
import Observatory

@testable import ObservatoryServer

#if canImport(Glibc)
    import Glibc
#endif

/// Real file operations that fail, or stall, on command: a full disk or an I/O
/// error without a broken disk.
final class FaultyFiles: StorageFiles {
    enum Operation: Hashable, Sendable {
        case createDirectory, open, write, truncate, synchronize, synchronizeDirectory, rename, remove, lock
    }

    private struct State {
        var failures: [Operation: Int32] = [:]
        var counts: [Operation: Int] = [:]
        var isSynchronizeHeld = false
        var isWriteHeld = false
        /// The `pthread_self()` of the thread that ran the last `synchronize`.
        var lastSynchronizeThread: UInt = 0
    }

    private let real = SystemFiles()
    private let state = Locked(State())
    private let synchronizeReleased = DispatchSemaphore(value: 0)
    /// Signalled each time a held `synchronize` starts waiting.
    let synchronizeStarted = DispatchSemaphore(value: 0)
    private let writeReleased = DispatchSemaphore(value: 0)
    /// Signalled each time a held `write` starts waiting.
    let writeStarted = DispatchSemaphore(value: 0)

    /// Makes `operation` fail with `errorNumber` until `heal(_:)`.
    func fail(_ operation: Operation, with errorNumber: Int32) {
        state.withLock { $0.failures[operation] = errorNumber }
    }

    /// Makes `operation` work again.
    func heal(_ operation: Operation) {
        state.withLock { $0.failures[operation] = nil }
    }

    /// How many times `operation` was called.
    func count(of operation: Operation) -> Int {
        state.withLock { $0.counts[operation] ?? 0 }
    }

    /// The `pthread_self()` of the thread that ran the last `synchronize` (0 before the first).
    var lastSynchronizeThread: UInt {
        state.withLock { $0.lastSynchronizeThread }
    }

    /// Makes every `synchronize` wait until `releaseSynchronize()`: a stuck disk.
    func holdSynchronize() {
        state.withLock { $0.isSynchronizeHeld = true }
    }

    /// Lets held and later `synchronize` calls go.
    func releaseSynchronize() {
        state.withLock { $0.isSynchronizeHeld = false }
        for _ in 0..<64 { synchronizeReleased.signal() }
    }

    /// Makes every `write` wait until `releaseWrite()`: a disk that takes its time.
    func holdWrite() {
        state.withLock { $0.isWriteHeld = true }
    }

    /// Lets held and later `write` calls go.
    func releaseWrite() {
        state.withLock { $0.isWriteHeld = false }
        for _ in 0..<64 { writeReleased.signal() }
    }

    private func check(_ operation: Operation, path: String) throws(StorageError) {
        let failure = state.withLock { state -> Int32? in
            state.counts[operation, default: 0] += 1
            return state.failures[operation]
        }
        if let failure { throw StorageError.system("\(operation)", path: path, errorNumber: failure) }
    }

    func createDirectory(_ path: String) throws(StorageError) {
        try check(.createDirectory, path: path)
        try real.createDirectory(path)
    }

    func list(_ directory: String) throws(StorageError) -> [String] {
        try real.list(directory)
    }

    func open(_ path: String, truncate: Bool) throws(StorageError) -> Int32 {
        try check(.open, path: path)
        return try real.open(path, truncate: truncate)
    }

    /// A failing write first writes half of the bytes, as a full disk does.
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StorageError) {
        if state.withLock({ $0.isWriteHeld }) {
            writeStarted.signal()
            _ = writeReleased.wait(timeout: .now() + 20)
        }
        do {
            try check(.write, path: path)
        } catch {
            try? real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]), path: path)
            throw error
        }
        try real.write(descriptor, bytes, path: path)
    }

    func truncate(_ descriptor: Int32, to length: Int, path: String) throws(StorageError) {
        try check(.truncate, path: path)
        try real.truncate(descriptor, to: length, path: path)
    }

    func synchronize(_ descriptor: Int32, path: String) throws(StorageError) {
        if state.withLock({ $0.isSynchronizeHeld }) {
            synchronizeStarted.signal()
            _ = synchronizeReleased.wait(timeout: .now() + 20)
        }
        try check(.synchronize, path: path)
        try real.synchronize(descriptor, path: path)
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        state.withLock { $0.lastSynchronizeThread = thread }
    }

    func synchronizeDirectory(_ path: String) throws(StorageError) {
        try check(.synchronizeDirectory, path: path)
        try real.synchronizeDirectory(path)
    }

    func rename(_ path: String, to newPath: String) throws(StorageError) {
        try check(.rename, path: path)
        try real.rename(path, to: newPath)
    }

    func remove(_ path: String) throws(StorageError) {
        try check(.remove, path: path)
        try real.remove(path)
    }

    func read(_ path: String) throws(StorageError) -> [UInt8] {
        try real.read(path)
    }

    func close(_ descriptor: Int32) {
        real.close(descriptor)
    }

    func lock(_ path: String) throws(StorageError) -> Int32? {
        try check(.lock, path: path)
        return try real.lock(path)
    }
}
