import Dispatch
import Foundation

// Compaction, closing and abandoning: the slow paths of `Storage`'s file shell.
extension Storage {
    // MARK: Compaction

    /// Claims a compaction when the logs have outgrown the threshold (under the lock).
    func claimCompactionIfDue(_ state: inout State) -> Bool {
        guard state.logBytesSinceSnapshot > options.compactionLogBytes, !state.isCompacting,
            DispatchTime.now().uptimeNanoseconds >= state.compactionNotBefore
        else { return false }
        state.isCompacting = true
        return true
    }

    func startCompaction() {
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
    func claimCompaction() -> Bool {
        state.withLock { state in
            guard !state.isCompacting else { return false }
            state.isCompacting = true
            return true
        }
    }

    func compact(isRecovery: Bool, claimed: Bool = false) {
        guard claimed || claimCompaction() else { return }
        do {
            try runCompaction(isRecovery: isRecovery)
        } catch {
            logger.warning("storage: compaction failed: \(error.message); the log keeps growing until one works")
        }
    }

    func runCompaction(isRecovery: Bool) throws(StorageError) {
        defer {
            state.withLock { state in
                state.isCompacting = false
                state.compactionNotBefore = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        guard let (frozen, sequence, reservation) = try startSnapshotLog() else { return }
        let revision = frozen.revision
        guard step(.logStarted) else { return }
        let name = DataDirectory.snapshotName(sequence)
        let temporary = directory.path(of: name + DataDirectory.temporarySuffix)
        let isWhole = try SnapshotWriter(files: options.files, path: temporary).write(
            frozen,
            header: StorageHeader(kind: .snapshot, epoch: epoch, revision: revision, sessionReservation: reservation),
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
        wake.run()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let what = isRecovery ? "storage recovered: wrote" : "compacted into"
        logger.info(
            "\(what) \(name): \(CountedNoun.text(frozen.view.entries.count, "key")) at revision \(revision) in \(String(format: "%.2f", seconds)) s"
        )
    }

    /// Copies the store and starts the log that follows the copy: while the
    /// store makes no change (`withFrozenState`) and no other write is in flight
    /// (so no session reservation lands in the log this one replaces after its
    /// header was written), with no lock held while the file is created.
    func startSnapshotLog() throws(StorageError) -> (FrozenState, Int64, Int64)? {
        guard let source = state.withLock({ $0.source }) else { return nil }
        return try source.withFrozenState { frozen throws(StorageError) -> (FrozenState, Int64, Int64)? in
            let (sequence, reservation) = try beginWrite { state throws(StorageError) -> (Int64, Int64) in
                guard !state.isClosed, !state.isAbandoned else {
                    throw StorageError(code: .unavailable, message: "storage is closed")
                }
                guard state.durability.allowsSnapshots else {
                    throw StorageError(
                        code: .unavailable,
                        message: "no snapshot is written after changes were taken back; restart the server")
                }
                return (state.nextSequence, state.sessionReservation)
            }
            let header = StorageHeader(
                kind: .log, epoch: epoch, revision: frozen.revision, sessionReservation: reservation)
            let started: Result<(file: LogFile, size: Int), StorageError>
            do throws(StorageError) {
                started = .success(try Self.startLog(sequence, in: directory, header: header))
            } catch {
                started = .failure(error)
            }
            endWrite { (state: inout State) -> Void in
                guard case .success(let log) = started else { return }
                state.nextSequence += 1
                state.retiring.append(state.log)
                state.log = log.file
                state.logSize = log.size
                state.logBytesSinceSnapshot = log.size
            }
            _ = try started.get()
            return (frozen, sequence, reservation)
        }
    }

    func removeFilesBefore(_ sequence: Int64) throws(StorageError) {
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
    func finishCompaction(through revision: Int64, sequence: Int64, _ state: inout State) -> RevisionGate.Wakeup {
        closeRetired(state.retiring.filter { $0.sequence < sequence }, state: &state)
        if state.durability.needsRecovery { logger.info("storage: writing works again; changes are accepted") }
        return carryOut(state.durability.snapshotWritten(through: revision), &state)
    }

    /// Runs the test seam after a step; on `false`, stops as a crash would.
    func step(_ step: CompactionStep) -> Bool {
        guard options.afterCompactionStep(step) else {
            abandon()
            return false
        }
        return true
    }

    static func startLog(
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
        // A write in flight ends first; none starts any more.
        let wake = whenNotWriting { state -> RevisionGate.Wakeup in
            guard !state.isAbandoned else { return RevisionGate.Wakeup() }
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
            return carryOut(state.durability.closed(), &state)
        }
        wake.run()
    }

    /// Stops as `kill -9` would: nothing more is written or flushed, descriptors
    /// and the directory lock are released. For tests of what a crash leaves.
    func abandon() {
        let isFirst = state.withLock { state -> Bool in
            guard !state.isAbandoned else { return false }
            state.isAbandoned = true
            return true
        }
        guard isFirst else { return }
        // A write in flight ends first (its descriptor must not be closed under it); none starts any more.
        let files = whenNotWriting { state in state.retiring + [state.log] }
        guard !files.isEmpty else { return }
        for file in files { options.files.close(file.descriptor) }
        options.files.close(lockDescriptor)
        wakeSyncer.signal()
    }
}
