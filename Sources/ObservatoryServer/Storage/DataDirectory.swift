import Foundation

/// The files of a data directory: their names, their order, and the lock that
/// keeps a second daemon out.
///
/// - `log-<sequence>.obs`: change logs, one started at every start and every
///   compaction; the records of log N come after those of every log below N.
/// - `snapshot-<sequence>.obs`: the whole store as of the moment log `<sequence>`
///   was started, so it replaces every log below that number.
/// - `*.tmp`: a snapshot being written; never read, removed at start.
/// - `LOCK`: locked by the daemon using the directory, holding its pid.
struct DataDirectory: Sendable {
    /// The data files present, by kind, sorted by sequence number.
    struct Listing: Equatable {
        var snapshots: [Int64] = []
        var logs: [Int64] = []
        var temporary: [String] = []
    }

    /// The directory's path, as configured.
    let path: String
    /// The file operations (real, or failing ones in tests).
    let files: any StorageFiles

    static let lockName = "LOCK"
    private static let logPrefix = "log-"
    private static let snapshotPrefix = "snapshot-"
    private static let suffix = ".obs"
    static let temporarySuffix = ".tmp"

    /// The path of a file in the directory.
    func path(of name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    static func logName(_ sequence: Int64) -> String {
        logPrefix + padded(sequence) + suffix
    }

    static func snapshotName(_ sequence: Int64) -> String {
        snapshotPrefix + padded(sequence) + suffix
    }

    /// Sorts the directory's entries into logs, snapshots and leftovers of an interrupted snapshot.
    func listing() throws(StorageError) -> Listing {
        var listing = Listing()
        for name in try files.list(path) {
            if name.hasSuffix(Self.temporarySuffix) {
                listing.temporary.append(name)
            } else if let sequence = Self.sequence(of: name, prefix: Self.logPrefix) {
                listing.logs.append(sequence)
            } else if let sequence = Self.sequence(of: name, prefix: Self.snapshotPrefix) {
                listing.snapshots.append(sequence)
            }
        }
        listing.logs.sort()
        listing.snapshots.sort()
        listing.temporary.sort()
        return listing
    }

    /// Creates the directory if needed and locks it for this process, writing our
    /// pid into the lock file.
    ///
    /// - Returns: the lock's descriptor; closing it releases the lock.
    /// - Throws: `directoryInUse` naming the holder's pid, or a system error (unwritable, not a directory).
    func lock(processID: Int32) throws(StorageError) -> Int32 {
        try files.createDirectory(path)
        let lockPath = path(of: Self.lockName)
        guard let descriptor = try files.lock(lockPath) else {
            let holder = (try? files.read(lockPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let pid = holder.trimmingCharacters(in: .whitespacesAndNewlines)
            throw StorageError(
                code: .directoryInUse,
                message: "the data directory \(path) is in use by another observatoryd "
                    + "(pid \(pid.isEmpty ? "unknown" : pid)); stop it, or give this one another --data")
        }
        do throws(StorageError) {
            try files.truncate(descriptor, to: 0, path: lockPath)
            try files.write(descriptor, Array("\(processID)\n".utf8), path: lockPath)
        } catch {
            files.close(descriptor)
            throw error
        }
        return descriptor
    }

    private static func sequence(of name: String, prefix: String) -> Int64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        return Int64(name.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private static func padded(_ sequence: Int64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }
}
