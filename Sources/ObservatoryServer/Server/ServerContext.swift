import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatorySockets
import ObservatoryWire
import Synchronization

/// What every session of one server shares: the store, the configuration, the
/// logger, the shutdown flag and the session numbers.
public final class ServerContext: Sendable {
    /// The shared values.
    public let store: SharedStore
    /// The authoritative state as sessions see it: `store`, with its storage.
    let state: any SharedState
    /// The settings the server runs with.
    public let configuration: ServerConfiguration
    /// Where the server logs.
    public let logger: Logger
    /// The limits used to decode requests (value size, nesting depth).
    let requestLimits: RequestLimits
    /// The bytes of unfinished frames all connections hold, against `limits.maxBufferedInputBytes`.
    let inputBudget: InputBudget
    private let shuttingDown = Atomic<Bool>(false)
    /// When a failed `hello` was last logged (uptime nanoseconds), and how many were not logged since.
    private let failedHellos = Locked<(lastLogged: UInt64, suppressed: Int)>((0, 0))
    private let sessionCounter: Atomic<Int64>
    /// Session numbers up to this one are recorded as possibly used (with storage).
    private let sessionLease: Locked<Int64>
    /// How many session numbers one lease record reserves.
    private static let sessionLeaseBlock: Int64 = 1_024

    /// Creates the shared state of a server: an empty in-memory store with `fsync`
    /// `none`, otherwise the store read back from the data directory.
    ///
    /// - Parameter storageOptions: overrides the storage options derived from the
    ///   configuration (tests pass failing file operations this way).
    /// - Throws: `StorageError` when the data directory cannot be used.
    public init(
        configuration: ServerConfiguration, logger: Logger = .silent, storageOptions: StorageOptions? = nil
    ) throws {
        self.configuration = configuration
        self.logger = logger
        requestLimits = RequestLimits(maxValueBytes: configuration.limits.maxValueBytes)
        inputBudget = InputBudget(limit: configuration.limits.maxBufferedInputBytes)
        let limits = configuration.limits
        var options =
            storageOptions
            ?? StorageOptions(
                fsync: configuration.fsync, compactionLogBytes: configuration.compactionLogBytes)
        options.historyChanges = limits.historyChanges
        options.maxRequestIds = limits.maxRequestIds
        guard options.fsync != .none else {
            store = SharedStore(
                maxKeys: limits.maxKeys, historyChanges: limits.historyChanges, maxRequestIds: limits.maxRequestIds)
            sessionCounter = Atomic(0)
            sessionLease = Locked(.max)
            state = store
            logger.info("storage: none, everything is kept in memory (epoch \(store.epoch))")
            return
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let (storage, recovered) = try Storage.open(
            directory: configuration.dataDirectory, options: options, logger: logger)
        store = SharedStore(
            maxKeys: limits.maxKeys, historyChanges: limits.historyChanges, storage: storage, recovered: recovered)
        state = store
        sessionCounter = Atomic(recovered.sessionLease)
        sessionLease = Locked(recovered.sessionLease)
        Self.logRecovery(
            recovered, options: options, directory: configuration.dataDirectory, since: started, logger: logger)
        endSessionsOfEarlierProcess()
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
            : "\(directory) (\(recovered.files.count) files, \(recovered.replayedChanges) changes replayed)"
        logger.info(
            "storage: fsync \(options.fsync.rawValue), loaded \(recovered.entries.count) keys at revision "
                + "\(recovered.revision) (epoch \(recovered.epoch)) from \(origin) in \(String(format: "%.2f", seconds)) s"
        )
    }

    /// Deletes the session-bound keys left by sessions that ended with the
    /// previous process (PROTOCOL.md: a restart ends every session).
    private func endSessionsOfEarlierProcess() {
        let (deleted, failure) = store.endSessionsOfEarlierProcess()
        if deleted > 0 {
            logger.info("deleted \(deleted) session-bound keys of sessions that ended with the previous process")
        }
        if let failure {
            logger.error("could not delete every session-bound key of the previous process: \(failure.message)")
        }
    }

    /// Whether shutdown has begun: requests are then answered with `shutting_down`.
    public var isShuttingDown: Bool {
        shuttingDown.load(ordering: .acquiring)
    }

    /// Starts shutdown; returns false if it had already started.
    func beginShutdown() -> Bool {
        !shuttingDown.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// A new session id: `s1`, `s2`, … never repeated within an epoch.
    ///
    /// With storage, numbers are reserved in blocks by a lease record, so a
    /// restart continues above every number this process may have handed out.
    func nextSessionID() -> String {
        let number = sessionCounter.add(1, ordering: .relaxed).newValue
        sessionLease.withLock { lease in
            guard number > lease, let storage = store.storage else { return }
            let reserved = number + Self.sessionLeaseBlock
            do throws(StorageError) {
                try storage.reserveSessions(through: reserved)
                lease = reserved
            } catch {
                logger.error("storage: cannot record used session numbers: \(error.message)")
            }
        }
        return "s\(number)"
    }

    /// The token entry for `secret`, if any.
    ///
    /// Compares the UTF-8 bytes of every token in constant time (no early exit, no
    /// Unicode equivalence), so that neither timing nor another spelling of the
    /// same characters helps a guesser.
    func accessToken(_ secret: String) -> AccessToken? {
        let offered = Array(secret.utf8)
        var found: AccessToken?
        for entry in configuration.auth.tokens where Self.constantTimeEqual(Array(entry.token.utf8), offered) {
            found = entry
        }
        return found
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }

    /// Logs a failed `hello` with the peer's address, at most once a second (a
    /// client guessing tokens must not flood the log), counting the ones left out.
    func logFailedHello(from peer: String, _ reason: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let suppressed = failedHellos.withLock { state -> Int? in
            guard state.lastLogged == 0 || now - state.lastLogged >= 1_000_000_000 else {
                state.suppressed += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (and \(suppressed) more since the last one logged)" : ""
        logger.warning("failed hello from \(peer): \(reason)\(more)")
    }

    /// Warnings about a configuration that works but is unsafe: short tokens, and
    /// listening beyond loopback without authentication.
    var configurationWarnings: [String] {
        var warnings = configuration.auth.tokens.filter { $0.token.utf8.count < 16 }.map {
            "the token of \($0.author) is \($0.token.utf8.count) bytes; use at least 16 random bytes"
        }
        let loopback =
            ["127.0.0.1", "::1", "localhost"].contains(configuration.host)
            || configuration.host.hasPrefix("127.")
        if !loopback && !configuration.requiresAuthentication {
            warnings.append(
                "listening on \(configuration.host) without authentication: anyone who can reach the port "
                    + "may read and write every key; configure tokens, or listen on 127.0.0.1")
        }
        return warnings
    }
}
