import Dispatch
import Observatory

/// The client's offline store at work: the ``OfflineStore`` in memory, its
/// ``OfflineStoreFile`` on disk, and when the one is saved to the other.
///
/// Mirrors record their entries as they change. A local write is saved before
/// the call that made it returns (``saveNow()``), so once `mirror.value = x`
/// returns, the write survives a crash; everything else (remote changes,
/// acknowledgements) is saved soon after, several changes in one save
/// (``saveSoon()``). Saves run one at a time on a serial queue of their own,
/// each writing the store as it is by then.
///
/// Thread safety: the store and the save bookkeeping sit in a `Locked` box,
/// held only to read or change them (mirrors record while holding their own
/// lock, so this lock is always the inner one); file I/O runs without it.
final class OfflinePersistence: Sendable {
    private struct State {
        var store: OfflineStore
        var saveScheduled = false
        /// Keys reported as left out of the file; a report names new ones only.
        var reportedLeftOut: Set<String> = []
        var reporter: (@Sendable (ClientError) -> Void)?
        /// Why the file was set aside at start, until it is reported.
        var loadProblem: ClientError?
    }
    private let file: OfflineStoreFile
    private let limit: Int
    private let state: Locked<State>
    private let saves = DispatchQueue(label: "observatory.client.offline-store")

    /// Loads the store kept in `directory`, capped at `limit` bytes.
    init(directory: String, limit: Int) {
        file = OfflineStoreFile(directory: directory)
        self.limit = limit
        let (entries, problem) = file.load()
        state = Locked(State(store: OfflineStore(entries: entries), loadProblem: problem))
    }

    /// Why the file was set aside at start, the first time it is asked for:
    /// the client reports it when the first mirror is made, since a program can
    /// observe `errors` only once the client exists.
    func takeLoadProblem() -> ClientError? {
        state.withLock { state in
            defer { state.loadProblem = nil }
            return state.loadProblem
        }
    }

    /// Where errors go (the client's `errors`); set once the client exists.
    func reportErrors(to reporter: @escaping @Sendable (ClientError) -> Void) {
        state.withLock { $0.reporter = reporter }
    }

    /// The entry kept for `key`, if any.
    func entry(for key: String) -> OfflineEntry? {
        state.withLock { $0.store.entry(for: key) }
    }

    /// The kept entries that hold an unacknowledged write.
    func keptWrites() -> [OfflineEntry] {
        state.withLock { $0.store.entries.values.filter { $0.write != nil } }
    }

    /// The server answered the kept write of `key` with `requestId` (applied
    /// or refused): it is no longer kept, and the key's value only if known.
    func forgetWrite(key: String, requestId: String) {
        state.withLock { state in
            guard var entry = state.store.entry(for: key), entry.write?.requestId == requestId else { return }
            entry.write = nil
            if entry.isKnown { state.store.record(entry) } else { state.store.remove(key) }
        }
        saveSoon()
    }

    /// Keeps `entry` as its key's latest state (saved by the next save).
    func record(_ entry: OfflineEntry) {
        state.withLock { $0.store.record(entry) }
    }

    /// Saves the store now, on the caller's thread's time: returns once it is on disk.
    func saveNow() {
        saves.sync { save() }
    }

    /// Saves the store soon; one save covers every change recorded until it starts.
    func saveSoon() {
        let schedule = state.withLock { state in
            defer { state.saveScheduled = true }
            return !state.saveScheduled
        }
        if schedule { saves.async { [self] in save() } }
    }

    /// Writes the store as it is now; reports what the cap left out and what failed.
    private func save() {
        let (image, reporter) = state.withLock { state in
            state.saveScheduled = false
            return (state.store.image(limit: limit), state.reporter)
        }
        var problems: [ClientError] = []
        do throws(ClientError) {
            try file.save(image.bytes)
        } catch {
            problems.append(error)
        }
        let leftOut = Set(image.evicted + image.unkeptWrites)
        let isNew = state.withLock { state in
            defer { state.reportedLeftOut = leftOut }
            return !leftOut.isSubset(of: state.reportedLeftOut)
        }
        if isNew {
            problems.append(.offlineStoreFull(limit: limit, evicted: image.evicted, unkeptWrites: image.unkeptWrites))
        }
        for problem in problems { reporter?(problem) }
    }
}
