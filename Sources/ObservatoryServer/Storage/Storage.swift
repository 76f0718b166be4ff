import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatoryWire

/// Gives storage a consistent copy of the store for a snapshot.
protocol SnapshotSource: AnyObject, Sendable {
    /// Runs `body` with the entries and the revision while no change can be made
    /// (holding no lock), so that what `body` starts (a new log) begins exactly
    /// after that state.
    func withFrozenState<Result>(
        _ body: (FrozenState) throws(StorageError) -> Result
    ) throws(StorageError) -> Result
}

/// The store's storage: an append-only change log in the data directory, fsynced
/// by policy, compacted into snapshots, and the rules for acknowledging changes.
///
/// ## The write path
/// One `write(2)` is in flight at a time, and it runs with no lock held
/// (`Storage+Writing.swift`); the store's write claims (`WriteClaimMachine`)
/// give it the changes in revision order:
/// - Appending (`append`): the store writes a change's records before it applies
///   the change, in one `write(2)`; a failed write leaves nothing behind (the
///   partial record is cut off) and the writer is told. The store's own methods
///   (`set`, `delete`, `batch`, session ends, expiry) and every write outside
///   event loops go this way.
/// - Batching (`buffer`, `takeBuffered`, `writeBuffered`, see
///   `Storage+Batching.swift`): with the server's event loops, the store applies a
///   change in memory, storage keeps its records in a buffer, and at the end of a
///   loop turn one `write(2)` takes everything buffered, as Redis writes its AOF
///   once per turn. `SharedStore+Batching.swift` says why no reader sees a change
///   before that write, and what a failed one does.
/// `write(2)` puts the records in the kernel's hands, so `kill -9` cannot take a
/// written change back.
///
/// ## Acknowledging
/// A `DurabilityMachine` decides how far replies to writes and events may go,
/// per the fsync policy; this shell tells it what happened to the files and
/// carries out what it returns, which advances the store's revision gate
/// (`gate`) or records lost changes there. `everysec` fsyncs once a second on
/// its own thread. Under `always`, the loop that writes a turn's batch fsyncs
/// it once its write claim ended (`syncTurn`), before that turn's replies are
/// flushed, with no thread to wake and no wake-up to wait for, as Redis does
/// once per event-loop iteration; the requests that arrive meanwhile share the
/// next turn's fsync (group commit). Other appends wake the syncer thread,
/// which syncs what was written so far. Connections wait on the gate, not on
/// storage.
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
/// `state` guards the files, the counters, the buffer and which write is in
/// flight; the store's lock is taken before it, never after. The gate's lock is
/// taken under it (so the gate advances in the machine's order); the gate's
/// waiters run after both are released, and no handler ever runs under either.
/// Nothing blocks under it: `write(2)` of a change, a turn's batch or a session
/// reservation, and the truncation that cuts back a failed one, run after it is
/// released, as the one write in flight (`writing`), which a second writer waits
/// for, holding no lock; fsync runs off it too (the syncer takes the files under
/// it, syncs, and reports under it again). The descriptor of a log being written
/// is closed only once its write ended. A compaction's new log is created the
/// same way, as the write in flight while the store makes no change, so that it
/// begins exactly after the store's copy. (Closing fsyncs the last files under
/// it, when nothing else runs.)
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
        /// The log that the one `write(2)` in flight goes to, while one is
        /// (`writeToLog`): nothing else is written, and its descriptor stays open.
        var writing: LogFile?
        /// The threads waiting for the write in flight to end.
        var writeWaiters: [DispatchSemaphore] = []
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
        guard let work = state.withLock({ syncStarting(&$0) }) else { return }
        let failure = synchronize(work.files)
        let wake = state.withLock { finishSync(work, failure: failure, &$0) }
        wake.run()
    }

    /// What one fsync covers: the files to flush and the last revision written to them.
    struct SyncWork {
        let files: [LogFile]
        let revision: Int64
    }

    /// Tells the machine an fsync starts (under the lock): what it covers, or
    /// `nil` when there is nothing to sync or another fsync runs.
    func syncStarting(_ state: inout State) -> SyncWork? {
        guard !state.isAbandoned,
            let revision = state.durability.syncStarting(
                at: DispatchTime.now().uptimeNanoseconds, hasRetiredLogs: !state.retiring.isEmpty)
        else { return nil }
        return SyncWork(files: state.retiring + [state.log], revision: revision)
    }

    /// Flushes `files` to disk (holding no lock); returns the first failure.
    func synchronize(_ files: [LogFile]) -> StorageError? {
        var failure: StorageError?
        let started = DispatchTime.now().uptimeNanoseconds
        for file in files where failure == nil {
            do {
                try options.files.synchronize(file.descriptor, path: file.path)
            } catch {
                failure = error
            }
        }
        fsyncDurations.observe(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        return failure
    }

    /// Tells the machine how an fsync ended (under the lock) and closes the
    /// retired logs it flushed; returns the gate's waiters to run once the lock is released.
    func finishSync(_ work: SyncWork, failure: StorageError?, _ state: inout State) -> RevisionGate.Wakeup {
        if let failure {
            if !state.durability.needsRecovery { logFailure(failure) }
            return carryOut(state.durability.syncFailed(failure.message), &state)
        }
        closeRetired(work.files.filter { $0 !== state.log }, state: &state)
        return carryOut(state.durability.synced(through: work.revision), &state)
    }

    /// Closes retired logs, except one a write in flight still goes to: that one
    /// stays retiring, and the next sync closes it.
    func closeRetired(_ files: [LogFile], state: inout State) {
        let closing = files.filter { $0 !== state.writing }
        for file in closing {
            options.files.close(file.descriptor)
        }
        state.retiring.removeAll { retired in closing.contains { $0 === retired } }
    }

    private func recoverAfterFailure() {
        compact(isRecovery: true)
    }
}
