import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatoryWire
import Synchronization

/// Gives storage a consistent copy of the store for a snapshot.
protocol SnapshotSource: AnyObject, Sendable {
    /// Runs `body` with the entries and the revision while no change can be made,
    /// so that what `body` starts (a new log) begins exactly after that state.
    func withFrozenState<Result>(
        _ body: (FrozenState) throws(StorageError) -> Result
    ) throws(StorageError) -> Result
}

/// The store's storage: an append-only change log in the data directory, fsynced
/// by policy, compacted into snapshots, and the rules for acknowledging changes.
///
/// ## The write path
/// The store appends each change's record while it holds its own lock, before it
/// applies the change, so the log holds changes in revision order and a change is
/// in memory only once it is in the log: a failed write leaves nothing behind (the
/// partial record is cut off) and the writer is told. `write(2)` puts the record
/// in the kernel's hands, so `kill -9` cannot take an appended change back.
///
/// ## Acknowledging
/// `acknowledgedRevision` is how far replies to writes and events may go out:
/// - `everysec`: up to the last record written; fsync runs once a second on its
///   own thread. If one runs for more than 2 s, acknowledging stops at what it
///   covers until it completes, so no ack gets ahead of a stuck disk.
/// - `always`: up to the last record on disk. One thread runs fsync after fsync;
///   the changes written during one share the next (group commit).
/// Connections whose next bytes are ahead of it wait with `whenAcknowledged`.
///
/// ## Failures
/// A failed write fails its change only. A failed fsync (or a log that could not
/// be cut back after a failed write) stops storage accepting changes: under
/// `always`, the changes waiting for that fsync are answered with an error
/// (`isLost`). Storage then rewrites everything into a new snapshot once a
/// second until that works, and accepts changes again.
///
/// ## Compaction
/// When the logs since the last snapshot pass `compactionLogBytes`, a background
/// thread starts a new log under the store's lock (with a copy of the store, which
/// `StoreView` makes cheap), writes the copy to a temporary file in key order,
/// flushes it, renames it into place, flushes the directory and removes the files
/// it replaces. A crash at any step leaves a directory that `StorageRecovery`
/// reads back whole.
///
/// ## Locking
/// `state` guards the files and counters; the store's lock is taken before it,
/// never after. Waiters' actions run after it is released.
public final class Storage: Sendable {
    /// An open log file.
    final class LogFile: Sendable {
        let sequence: Int64
        let path: String
        let descriptor: Int32

        init(sequence: Int64, path: String, descriptor: Int32) {
            self.sequence = sequence
            self.path = path
            self.descriptor = descriptor
        }
    }

    private struct Waiter {
        let revision: Int64
        let action: @Sendable () -> Void
    }

    private struct State {
        var log: LogFile
        var logSize: Int
        /// Older logs whose last records may not be on disk yet.
        var retiring: [LogFile] = []
        var writtenRevision: Int64
        var syncedRevision: Int64
        var sessionLease: Int64
        var nextSequence: Int64
        var logBytesSinceSnapshot: Int
        /// Set while storage refuses changes after a failure it must recover from.
        var failure: StorageError?
        /// Changes that were waiting for an fsync that failed: their writers are told.
        var lostRevisions: [ClosedRange<Int64>] = []
        /// When the fsync under way started (uptime nanoseconds).
        var syncStartedAt: UInt64?
        var isCompacting = false
        var compactionNotBefore: UInt64 = 0
        var isClosed = false
        var isAbandoned = false
        var waiters: [Waiter] = []
        weak var source: (any SnapshotSource)?
    }

    /// The options it runs with.
    public let options: StorageOptions
    /// The name of this data directory's history.
    public let epoch: String
    let directory: DataDirectory
    private let state: Locked<State>
    private let acknowledged: Atomic<Int64>
    private let lockDescriptor: Int32
    private let logger: Logger
    private let wakeSyncer = DispatchSemaphore(value: 0)
    private let syncerStopped = DispatchSemaphore(value: 0)
    private let compactions = DispatchGroup()

    /// Opens the data directory: locks it, reads it back, and starts a new log.
    ///
    /// - Returns: the storage and what the directory held.
    /// - Throws: `StorageError`: the directory is in use, cannot be created or
    ///   written, or holds damaged data.
    static func open(
        directory path: String, options: StorageOptions, logger: Logger
    ) throws(StorageError) -> (Storage, RecoveredState) {
        let directory = DataDirectory(path: path, files: options.files)
        let lockDescriptor = try directory.lock(processID: getpid())
        do {
            let recovered = try StorageRecovery(
                directory: directory, repair: true, historyChanges: options.historyChanges,
                maxRequestIds: options.maxRequestIds
            ).recover()
            let storage = try Storage(
                directory: directory, options: options, recovered: recovered, lockDescriptor: lockDescriptor,
                logger: logger)
            return (storage, recovered)
        } catch {
            options.files.close(lockDescriptor)
            throw error
        }
    }

    private init(
        directory: DataDirectory, options: StorageOptions, recovered: RecoveredState, lockDescriptor: Int32,
        logger: Logger
    ) throws(StorageError) {
        self.directory = directory
        self.options = options
        self.lockDescriptor = lockDescriptor
        self.logger = logger
        epoch = recovered.epoch
        let sequence = recovered.nextSequence
        let log = try Self.startLog(
            sequence, in: directory,
            header: StorageHeader(
                kind: .log, epoch: recovered.epoch, revision: recovered.revision,
                sessionLease: recovered.sessionLease))
        if recovered.isNew {
            try directory.files.synchronizeDirectory(directory.path)
        }
        state = Locked(
            State(
                log: log.file, logSize: log.size, writtenRevision: recovered.revision,
                syncedRevision: recovered.revision, sessionLease: recovered.sessionLease, nextSequence: sequence + 1,
                logBytesSinceSnapshot: recovered.logBytes + log.size))
        acknowledged = Atomic(recovered.revision)
        let thread = Thread { [self] in runSyncer() }
        thread.name = "observatory.storage.sync"
        thread.start()
    }

    /// Connects the store that snapshots copy.
    func attach(_ source: any SnapshotSource) {
        state.withLock { $0.source = source }
    }

    // MARK: Writing

    /// Appends the records of one change to the log in one `write(2)` (the caller
    /// holds the store's lock, so records go in revision order). Returns once
    /// `write(2)` has taken them.
    ///
    /// - Throws: `StorageError` when storage is failed, or the write failed; then
    ///   nothing of the records stays in the log.
    func append(_ records: [StorageRecord]) throws(StorageError) {
        var bytes: [UInt8] = []
        for record in records { RecordFraming.append(record, to: &bytes) }
        let (wake, compact) = try state.withLock { state throws(StorageError) -> ([Waiter], Bool) in
            try write(bytes, into: &state)
            guard let revision = records.lazy.compactMap(\.revision).max() else { return ([], false) }
            state.writtenRevision = revision
            let wake = options.fsync == .everysec ? acknowledgeWritten(&state) : []
            return (wake, claimCompactionIfDue(&state))
        }
        if options.fsync == .always { wakeSyncer.signal() }
        run(wake)
        if compact { startCompaction() }
    }

    private func write(_ bytes: [UInt8], into state: inout State) throws(StorageError) {
        if let failure = state.failure {
            throw StorageError(code: .unavailable, message: failure.message + "; retrying every second")
        }
        guard !state.isClosed, !state.isAbandoned else {
            throw StorageError(code: .unavailable, message: "storage is closed")
        }
        let log = state.log
        do {
            try options.files.write(log.descriptor, bytes, path: log.path)
        } catch {
            cutBack(log, to: state.logSize, after: error, state: &state)
            throw error
        }
        state.logSize += bytes.count
        state.logBytesSinceSnapshot += bytes.count
    }

    /// Removes what a failed write may have left; if even that fails, the log's
    /// end cannot be trusted and storage stops until a snapshot replaces it.
    private func cutBack(_ log: LogFile, to size: Int, after error: StorageError, state: inout State) {
        do {
            try options.files.truncate(log.descriptor, to: size, path: log.path)
        } catch {
            fail(&state, error)
        }
        logger.error("storage: \(error.message); the change was not made")
    }

    /// Records that session numbers up to `number` may be handed out, so a restart continues above them.
    func reserveSessions(through number: Int64) throws(StorageError) {
        let bytes = RecordFraming.framed(.sessionLease(number))
        try state.withLock { state throws(StorageError) in
            try write(bytes, into: &state)
            state.sessionLease = max(state.sessionLease, number)
        }
    }

    // MARK: Acknowledging

    /// The revision up to which replies to writes and events may go out.
    var acknowledgedRevision: Int64 {
        acknowledged.load(ordering: .acquiring)
    }

    /// Whether the change at `revision` waited for an fsync that failed: its
    /// writer is answered with an error instead.
    func isLost(_ revision: Int64) -> Bool {
        state.withLock { state in state.lostRevisions.contains { $0.contains(revision) } }
    }

    /// The error a writer whose change `isLost` receives.
    func lostChangeError() -> WireError {
        let reason = state.withLock { $0.failure?.message } ?? "an fsync failed"
        return WireError(
            code: .internalError,
            message: "storage: \(reason); this change may not be on disk and was not acknowledged, "
                + "read the key to see whether it stands")
    }

    /// Runs `action` once `revision` is acknowledged, or has been declared lost
    /// (at once if it already is). Used by connections whose next bytes must wait.
    func whenAcknowledged(_ revision: Int64, _ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if acknowledged.load(ordering: .acquiring) >= revision || state.isClosed { return true }
            state.waiters.append(Waiter(revision: revision, action: action))
            return false
        }
        if now { action() }
    }

    private func acknowledgeWritten(_ state: inout State) -> [Waiter] {
        if let started = state.syncStartedAt,
            DispatchTime.now().uptimeNanoseconds - started > options.stalledSyncNanoseconds
        {
            return []
        }
        return acknowledge(through: state.writtenRevision, &state)
    }

    private func acknowledge(through revision: Int64, _ state: inout State) -> [Waiter] {
        guard revision > acknowledged.load(ordering: .relaxed) else { return [] }
        acknowledged.store(revision, ordering: .releasing)
        return takeWaiters(&state) { $0.revision <= revision }
    }

    private func takeWaiters(_ state: inout State, where isReady: (Waiter) -> Bool) -> [Waiter] {
        guard !state.waiters.isEmpty else { return [] }
        var ready: [Waiter] = []
        state.waiters.removeAll { waiter in
            guard isReady(waiter) else { return false }
            ready.append(waiter)
            return true
        }
        return ready
    }

    private func run(_ waiters: [Waiter]) {
        for waiter in waiters { waiter.action() }
    }

    // MARK: Syncing

    private func runSyncer() {
        while true {
            // `always` syncs when woken by a write; `everysec`, and a failed storage
            // retrying its recovery, once a second.
            if options.fsync == .always && state.withLock({ $0.failure == nil }) {
                wakeSyncer.wait()
            } else {
                _ = wakeSyncer.wait(timeout: .now() + .seconds(1))
            }
            let (isOver, isFailed) = state.withLock { ($0.isClosed || $0.isAbandoned, $0.failure != nil) }
            if isOver { break }
            if isFailed {
                recoverAfterFailure()
            } else {
                syncOnce()
            }
        }
        syncerStopped.signal()
    }

    /// Forces everything written so far to disk and acknowledges it.
    private func syncOnce() {
        let work = state.withLock { state -> (files: [LogFile], revision: Int64)? in
            guard state.failure == nil, !state.isAbandoned,
                state.writtenRevision > state.syncedRevision || !state.retiring.isEmpty
            else { return nil }
            state.syncStartedAt = DispatchTime.now().uptimeNanoseconds
            return (state.retiring + [state.log], state.writtenRevision)
        }
        guard let work else { return }
        var failure: StorageError?
        for file in work.files where failure == nil {
            do {
                try options.files.synchronize(file.descriptor, path: file.path)
            } catch {
                failure = error
            }
        }
        let wake = state.withLock { state -> [Waiter] in
            state.syncStartedAt = nil
            if let failure {
                fail(&state, failure)
                return takeWaiters(&state) { _ in true }
            }
            state.syncedRevision = max(state.syncedRevision, work.revision)
            closeRetired(work.files.filter { $0 !== state.log }, state: &state)
            let through = options.fsync == .always ? state.syncedRevision : state.writtenRevision
            return acknowledge(through: through, &state)
        }
        run(wake)
    }

    private func closeRetired(_ files: [LogFile], state: inout State) {
        for file in files {
            options.files.close(file.descriptor)
        }
        state.retiring.removeAll { retired in files.contains { $0 === retired } }
    }

    /// Stops accepting changes; under `always` the changes waiting for an fsync are lost to their writers.
    private func fail(_ state: inout State, _ error: StorageError) {
        guard state.failure == nil else { return }
        state.failure = error
        let waiting = acknowledged.load(ordering: .relaxed) + 1
        if options.fsync == .always, state.writtenRevision >= waiting {
            state.lostRevisions.append(waiting...state.writtenRevision)
        }
        logger.error("storage: \(error.message); changes are refused until a new snapshot can be written")
        wakeSyncer.signal()
    }

    private func recoverAfterFailure() {
        compact(isRecovery: true)
    }

    // MARK: Compaction

    /// Claims a compaction when the logs have outgrown the threshold (under the lock).
    private func claimCompactionIfDue(_ state: inout State) -> Bool {
        guard state.logBytesSinceSnapshot > options.compactionLogBytes, !state.isCompacting,
            DispatchTime.now().uptimeNanoseconds >= state.compactionNotBefore
        else { return false }
        state.isCompacting = true
        return true
    }

    private func startCompaction() {
        DispatchQueue.global(qos: .utility).async(group: compactions) { [self] in
            compact(isRecovery: false, claimed: true)
        }
    }

    /// Compacts now, whatever the log's size, and returns when done: for
    /// maintenance, tests and the benchmark. Writers go on meanwhile.
    ///
    /// - Throws: `unavailable` when a compaction is already under way, or the
    ///   file operation that failed (the log then stays as it was).
    public func compactNow() throws(StorageError) {
        guard claimCompaction() else {
            throw StorageError(code: .unavailable, message: "a compaction is already under way")
        }
        try runCompaction(isRecovery: false)
    }

    /// Marks a compaction as under way; `false` if one already is.
    private func claimCompaction() -> Bool {
        state.withLock { state in
            guard !state.isCompacting else { return false }
            state.isCompacting = true
            return true
        }
    }

    private func compact(isRecovery: Bool, claimed: Bool = false) {
        guard claimed || claimCompaction() else { return }
        do {
            try runCompaction(isRecovery: isRecovery)
        } catch {
            logger.warning("storage: compaction failed: \(error.message); the log keeps growing until one works")
        }
    }

    private func runCompaction(isRecovery: Bool) throws(StorageError) {
        defer {
            state.withLock { state in
                state.isCompacting = false
                state.compactionNotBefore = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        guard let (frozen, sequence, lease) = try startSnapshotLog() else { return }
        let revision = frozen.revision
        guard step(.logStarted) else { return }
        let name = DataDirectory.snapshotName(sequence)
        let temporary = directory.path(of: name + DataDirectory.temporarySuffix)
        let isWhole = try SnapshotWriter(files: options.files, path: temporary).write(
            frozen, header: StorageHeader(kind: .snapshot, epoch: epoch, revision: revision, sessionLease: lease),
            isCancelled: { [state] in state.withLock { $0.isClosed || $0.isAbandoned } },
            afterWriting: { step(.snapshotWritten) })
        guard isWhole, step(.snapshotSynced) else { return }
        try options.files.rename(temporary, to: directory.path(of: name))
        guard step(.snapshotRenamed) else { return }
        try options.files.synchronizeDirectory(directory.path)
        guard step(.directorySynced) else { return }
        try removeFilesBefore(sequence)
        guard step(.oldFilesRemoved) else { return }
        let wake = state.withLock { state in finishCompaction(through: revision, sequence: sequence, &state) }
        run(wake)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let what = isRecovery ? "storage recovered: wrote" : "compacted into"
        logger.info(
            "\(what) \(name): \(frozen.view.entries.count) keys at revision \(revision) in \(String(format: "%.2f", seconds)) s"
        )
    }

    /// Under the store's lock: copies the store and starts the log that follows the copy.
    private func startSnapshotLog() throws(StorageError) -> (FrozenState, Int64, Int64)? {
        guard let source = state.withLock({ $0.source }) else { return nil }
        return try source.withFrozenState { frozen throws(StorageError) in
            try state.withLock { state throws(StorageError) in
                guard !state.isClosed, !state.isAbandoned else {
                    throw StorageError(code: .unavailable, message: "storage is closed")
                }
                let sequence = state.nextSequence
                let header = StorageHeader(
                    kind: .log, epoch: epoch, revision: frozen.revision, sessionLease: state.sessionLease)
                let log = try Self.startLog(sequence, in: directory, header: header)
                state.nextSequence += 1
                state.retiring.append(state.log)
                state.log = log.file
                state.logSize = log.size
                state.logBytesSinceSnapshot = log.size
                return (frozen, sequence, state.sessionLease)
            }
        }
    }

    private func removeFilesBefore(_ sequence: Int64) throws(StorageError) {
        let listing = try directory.listing()
        let names =
            listing.snapshots.filter { $0 < sequence }.map(DataDirectory.snapshotName)
            + listing.logs.filter { $0 < sequence }.map(DataDirectory.logName)
        for name in names {
            try options.files.remove(directory.path(of: name))
        }
        try options.files.synchronizeDirectory(directory.path)
    }

    /// Everything up to `revision` is in the new snapshot, on disk: the old logs
    /// need no fsync any more, and a failure is over.
    private func finishCompaction(through revision: Int64, sequence: Int64, _ state: inout State) -> [Waiter] {
        closeRetired(state.retiring.filter { $0.sequence < sequence }, state: &state)
        state.syncedRevision = max(state.syncedRevision, revision)
        guard state.failure != nil else {
            return options.fsync == .always ? acknowledge(through: state.syncedRevision, &state) : []
        }
        state.failure = nil
        logger.info("storage: writing works again; changes are accepted")
        return acknowledge(through: max(revision, state.writtenRevision), &state)
    }

    /// Runs the test seam after a step; on `false`, stops as a crash would.
    private func step(_ step: CompactionStep) -> Bool {
        guard options.afterCompactionStep(step) else {
            abandon()
            return false
        }
        return true
    }

    private static func startLog(
        _ sequence: Int64, in directory: DataDirectory, header: StorageHeader
    ) throws(StorageError) -> (file: LogFile, size: Int) {
        let path = directory.path(of: DataDirectory.logName(sequence))
        let descriptor = try directory.files.open(path, truncate: true)
        let bytes = RecordFraming.framed(.header(header))
        do {
            try directory.files.write(descriptor, bytes, path: path)
        } catch {
            directory.files.close(descriptor)
            try? directory.files.remove(path)
            throw error
        }
        return (LogFile(sequence: sequence, path: path, descriptor: descriptor), bytes.count)
    }

    // MARK: Closing

    /// Flushes and fsyncs everything, then releases the directory. Waits for a
    /// compaction under way to stop. Idempotent.
    public func close() {
        let isFirst = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.isClosed = true
            return true
        }
        guard isFirst else { return }
        wakeSyncer.signal()
        syncerStopped.wait()
        compactions.wait()
        let wake = state.withLock { state -> [Waiter] in
            guard !state.isAbandoned else { return [] }
            for file in state.retiring + [state.log] {
                do throws(StorageError) {
                    try options.files.synchronize(file.descriptor, path: file.path)
                } catch {
                    logger.error("storage: \(error.message) while closing")
                }
                options.files.close(file.descriptor)
            }
            state.retiring = []
            options.files.close(lockDescriptor)
            return acknowledge(through: state.writtenRevision, &state) + takeWaiters(&state) { _ in true }
        }
        run(wake)
    }

    /// Stops as `kill -9` would: nothing more is written or flushed, descriptors
    /// and the directory lock are released. For tests of what a crash leaves.
    func abandon() {
        let files = state.withLock { state -> [LogFile] in
            guard !state.isAbandoned else { return [] }
            state.isAbandoned = true
            return state.retiring + [state.log]
        }
        guard !files.isEmpty else { return }
        for file in files { options.files.close(file.descriptor) }
        options.files.close(lockDescriptor)
        wakeSyncer.signal()
    }
}
