import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatoryWire

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
/// Two ways, both under the store's lock, so the log holds changes in revision order:
/// - Appending (`append`): the store writes a change's records before it applies
///   the change, in one `write(2)`; a failed write leaves nothing behind (the
///   partial record is cut off) and the writer is told. The store's own methods
///   (`set`, `delete`, session ends) and every write outside event loops go this way.
/// - Batching (`buffer`, `writeBuffered`, see `Storage+Batching.swift`): with the
///   server's event loops, the store applies a change in memory, storage keeps its
///   records in a buffer, and at the end of a loop turn one `write(2)` takes
///   everything buffered, as Redis writes its AOF once per turn. `SharedStore`
///   says why no reader sees a change before that write, and what a failed one does.
/// `write(2)` puts the records in the kernel's hands, so `kill -9` cannot take a
/// written change back.
///
/// ## Acknowledging
/// A `DurabilityMachine` decides how far replies to writes and events may go,
/// per the fsync policy; this shell tells it what happened to the files and
/// carries out what it returns, which advances the store's revision gate
/// (`gate`) or records lost changes there. `everysec` fsyncs once a second on
/// its own thread; `always` runs fsync after fsync there, the changes written
/// during one sharing the next (group commit). Connections wait on the gate,
/// not on storage.
///
/// ## Failures
/// A failed write fails its change only. A failed fsync (or a log that could not
/// be cut back after a failed write) stops storage accepting changes: under
/// `always`, the changes waiting for that fsync are answered with an error
/// (lost at the gate). Storage then rewrites everything into a new snapshot once a
/// second until that works, and accepts changes again. A failed batch write
/// loses the changes of the batch (the store takes them back) and refuses
/// changes until the server restarts (`DurabilityMachine.batchWriteFailed`).
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
/// never after. The gate's lock is taken under it (so the gate advances in the
/// machine's order); the gate's waiters run after both are released, and no
/// handler ever runs under either. fsync runs off every lock (the syncer takes
/// the files under it, syncs, and reports under it again). The one blocking
/// call under it is `write(2)` of a change, a turn's batch or a session reservation
/// (and the truncation that cuts back a failed one): it runs under this lock
/// and, for changes, under the store's, which keeps the log in revision order
/// and lets a failed write be cut back before anything else is appended.
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

    /// Everything the lock guards. More than ten fields, because the file shell
    /// keeps its files and its compaction under one lock, so that an
    /// append takes one lock; the acknowledging rules are one field, `durability`.
    struct State {
        var log: LogFile
        var logSize: Int
        /// Older logs whose last records may not be on disk yet.
        var retiring: [LogFile] = []
        /// The written, synced and acknowledged revisions, failures and lost changes.
        var durability: DurabilityMachine
        var sessionReservation: Int64
        var nextSequence: Int64
        var logBytesSinceSnapshot: Int
        var isCompacting = false
        var compactionNotBefore: UInt64 = 0
        var isClosed = false
        var isAbandoned = false
        /// Whether changes are buffered until the end of the loop turn (`startBatching()`).
        var batchesWrites = false
        /// The framed records of changes applied in memory and not written yet.
        var buffered: [UInt8] = []
        /// The revision of the last buffered change.
        var bufferedRevision: Int64 = 0
        /// The time of the last `changeTime` record in `buffered`: an equal one is left out.
        var bufferedChangeTime: Int64?
        weak var source: (any SnapshotSource)?
    }

    /// The options it runs with.
    public let options: StorageOptions
    /// The name of this data directory's history.
    public let epoch: String
    let directory: DataDirectory
    let state: Locked<State>
    /// The revision gate the machine's acknowledgements advance (the store owns
    /// it as its shared state's gate; storage creates it at the revision it read back).
    let gate: RevisionGate
    let lockDescriptor: Int32
    let logger: Logger
    let wakeSyncer = DispatchSemaphore(value: 0)
    let syncerStopped = DispatchSemaphore(value: 0)
    let compactions = DispatchGroup()
    /// How long each fsync took, for `/metrics`.
    let fsyncDurations = Histogram(bounds: Histogram.durationBounds)

    /// The bytes of the current change log, for `/metrics`.
    var logByteCount: Int {
        state.withLock { $0.logSize }
    }

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
                sessionReservation: recovered.sessionReservation))
        if recovered.isNew {
            try directory.files.synchronizeDirectory(directory.path)
        }
        state = Locked(
            State(
                log: log.file, logSize: log.size,
                durability: DurabilityMachine(
                    policy: options.fsync, revision: recovered.revision,
                    stalledSyncNanoseconds: options.stalledSyncNanoseconds),
                sessionReservation: recovered.sessionReservation, nextSequence: sequence + 1,
                logBytesSinceSnapshot: recovered.logBytes + log.size))
        gate = RevisionGate(reached: recovered.revision)
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
    /// - Returns: the revision gate's waiters this woke, for the caller to run
    ///   once it released the store's lock.
    /// - Throws: `StorageError` when storage is failed, or the write failed; then
    ///   nothing of the records stays in the log.
    func append(_ records: [StorageRecord]) throws(StorageError) -> RevisionGate.Wakeup {
        assert(state.withLock { $0.buffered.isEmpty }, "the store writes what is buffered first")
        var bytes: [UInt8] = []
        for record in records { RecordFraming.append(record, to: &bytes) }
        let (wake, compact) = try state.withLock { state throws(StorageError) -> (RevisionGate.Wakeup, Bool) in
            try write(bytes, into: &state)
            let revision = records.lazy.compactMap(\.revision).max()
            // The clock is read only when the machine needs it: while an fsync runs.
            let now = state.durability.isSyncing ? DispatchTime.now().uptimeNanoseconds : 0
            let wake = carryOut(state.durability.appended(through: revision, at: now), &state)
            return (wake, revision != nil && claimCompactionIfDue(&state))
        }
        if compact { startCompaction() }
        return wake
    }

    func write(_ bytes: [UInt8], into state: inout State, kind: WriteKind = .change) throws(StorageError) {
        switch kind {
        case .change: try checkAcceptsChanges(state)
        case .batch: try checkCanWrite(state, unless: state.durability.isLogDamaged)
        case .sessionReservation: try checkCanWrite(state, unless: state.durability.needsRecovery)
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
            if !state.durability.needsRecovery { logFailure(error) }
            // The writers of the changes lost here learn it off this lock, which the
            // caller still holds (this runs only when a write failed and could not
            // be cut back).
            let wakeup = carryOut(state.durability.logDamaged(error.message), &state)
            DispatchQueue.global().async { wakeup.run() }
        }
        logger.error("storage: \(error.message); the change was not made")
    }

    /// Session numbers up to this one may have been handed out (read back, or recorded since).
    var sessionReservation: Int64 {
        state.withLock { $0.sessionReservation }
    }

    /// Records that session numbers up to `number` may be handed out, so a restart continues above them.
    func reserveSessions(through number: Int64) throws(StorageError) {
        let bytes = RecordFraming.framed(.sessionReservation(number))
        try state.withLock { state throws(StorageError) in
            try write(bytes, into: &state, kind: .sessionReservation)
            state.sessionReservation = max(state.sessionReservation, number)
        }
    }

    // MARK: Acknowledging

    /// The revision up to which replies to writes and events may go out.
    var acknowledgedRevision: Int64 {
        gate.reached
    }

    /// Carries out what the durability machine decided (under the lock): tells
    /// the gate, and returns its waiters to run once the lock is released.
    func carryOut(_ actions: DurabilityMachine.Actions, _ state: inout State) -> RevisionGate.Wakeup {
        if actions.wakeSyncer { wakeSyncer.signal() }
        var wakeup = RevisionGate.Wakeup()
        if let lost = actions.lose {
            wakeup += gate.lose(lost, because: state.durability.lostChangeError)
        }
        if let revision = actions.acknowledge { wakeup += gate.advance(to: revision) }
        if actions.closeGate { wakeup += gate.close() }
        return wakeup
    }

    func logFailure(_ error: StorageError) {
        logger.error("storage: \(error.message); changes are refused until a new snapshot can be written")
    }

    // MARK: Syncing

    private func runSyncer() {
        while true {
            // `always` syncs when woken by a write; `everysec`, and a failed storage
            // retrying its recovery, once a second.
            if state.withLock({ $0.durability.syncsOnlyWhenWoken }) {
                wakeSyncer.wait()
            } else {
                _ = wakeSyncer.wait(timeout: .now() + .seconds(1))
            }
            let (isOver, isFailed) = state.withLock {
                ($0.isClosed || $0.isAbandoned, $0.durability.needsRecovery && $0.durability.allowsSnapshots)
            }
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
            guard !state.isAbandoned,
                let revision = state.durability.syncStarting(
                    at: DispatchTime.now().uptimeNanoseconds, hasRetiredLogs: !state.retiring.isEmpty)
            else { return nil }
            return (state.retiring + [state.log], revision)
        }
        guard let work else { return }
        var failure: StorageError?
        let started = DispatchTime.now().uptimeNanoseconds
        for file in work.files where failure == nil {
            do {
                try options.files.synchronize(file.descriptor, path: file.path)
            } catch {
                failure = error
            }
        }
        fsyncDurations.observe(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        let wake = state.withLock { state -> RevisionGate.Wakeup in
            if let failure {
                if !state.durability.needsRecovery { logFailure(failure) }
                return carryOut(state.durability.syncFailed(failure.message), &state)
            }
            closeRetired(work.files.filter { $0 !== state.log }, state: &state)
            return carryOut(state.durability.synced(through: work.revision), &state)
        }
        wake.run()
    }

    func closeRetired(_ files: [LogFile], state: inout State) {
        for file in files {
            options.files.close(file.descriptor)
        }
        state.retiring.removeAll { retired in files.contains { $0 === retired } }
    }

    private func recoverAfterFailure() {
        compact(isRecovery: true)
    }
}
