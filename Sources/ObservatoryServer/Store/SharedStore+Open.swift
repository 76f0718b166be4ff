import Dispatch
import Foundation
import ObservatoryLogging

extension SharedStore {
    /// Opens the store a server with `configuration` serves: empty and in memory
    /// with `fsync` `none`, otherwise read back from the data directory, with the
    /// session-bound keys of the previous process deleted.
    ///
    /// - Parameters:
    ///   - configuration: the settings whose data directory, fsync policy and limits the store uses.
    ///   - logger: where storage logs what it recovered.
    ///   - storageOptions: overrides the storage options derived from the
    ///     configuration (tests pass failing file operations this way).
    /// - Throws: `StorageError` when the data directory cannot be used.
    public static func open(
        configuration: ServerConfiguration, logger: Logger = .silent, storageOptions: StorageOptions? = nil
    ) throws -> SharedStore {
        let limits = configuration.limits
        var options =
            storageOptions
            ?? StorageOptions(fsync: configuration.fsync, compactionLogBytes: configuration.compactionLogBytes)
        options.historyChanges = limits.historyChanges
        options.maxRequestIds = limits.maxRequestIds
        guard options.fsync != .none else {
            let store = SharedStore(
                maxKeys: limits.maxKeys, maxStoreBytes: limits.maxStoreBytes, historyChanges: limits.historyChanges,
                historyBytes: limits.historyBytes, maxRequestIds: limits.maxRequestIds)
            logger.info("storage: none, everything is kept in memory (epoch \(store.epoch))")
            return store
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let (storage, recovered) = try Storage.open(
            directory: configuration.dataDirectory, options: options, logger: logger)
        let store = SharedStore(limits: limits, storage: storage, recovered: recovered)
        logRecovery(recovered, options: options, directory: configuration.dataDirectory, since: started, logger: logger)
        store.endSessionsOfEarlierProcess(logger: logger)
        return store
    }

    private static func logRecovery(
        _ recovered: RecoveredState, options: StorageOptions, directory: String, since started: UInt64,
        logger: Logger
    ) {
        for warning in recovered.warnings { logger.warning("storage: \(warning)") }
        for file in recovered.files {
            if let torn = file.tornTail {
                logger.warning(
                    "storage: cut a torn record (an interrupted write) off \(directory)/\(file.name) at \(torn)")
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let origin =
            recovered.isNew
            ? "a new data directory \(directory)"
            : "\(directory) (\(CountedNoun.text(recovered.files.count, "file")), "
                + "\(CountedNoun.text(recovered.replayedChanges, "change")) replayed)"
        let keys = CountedNoun.text(recovered.entries.count, "key")
        logger.info(
            "storage: fsync \(options.fsync.rawValue), loaded \(keys) at revision "
                + "\(recovered.revision) (epoch \(recovered.epoch)) from \(origin) in \(String(format: "%.2f", seconds)) s"
        )
    }

    /// Deletes the session-bound keys left by sessions that ended with the
    /// previous process (docs/protocol.md: a restart ends every session).
    private func endSessionsOfEarlierProcess(logger: Logger) {
        let (deleted, failure) = endSessionsOfEarlierProcess()
        if deleted > 0 {
            logger.info("deleted \(deleted) session-bound keys of sessions that ended with the previous process")
        }
        if let failure {
            logger.error("could not delete every session-bound key of the previous process: \(failure.message)")
        }
    }
}
