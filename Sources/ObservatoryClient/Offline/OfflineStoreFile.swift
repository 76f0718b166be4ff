import Foundation

/// The offline store's one file, read once at start and replaced whole on
/// every save: written to a temporary file, flushed to disk (`fsync`), then
/// renamed over the old one, so a crash leaves either the old file or the new
/// one, never a mix. ``OfflineStoreFormat`` checks what is read, so a torn,
/// damaged or foreign file is set aside (renamed), never trusted.
///
/// Foundation's `FileManager` and `FileHandle` plus POSIX `rename`, all of
/// which Darwin and Glibc share.
struct OfflineStoreFile: Sendable {
    /// The file's name inside the configured directory.
    static let name = "observatory-client.store"

    /// The store's path.
    let path: String

    /// The store file inside `directory`.
    init(directory: String) {
        path = (directory.hasSuffix("/") ? directory : directory + "/") + Self.name
    }

    /// The entries the file holds: none when there is no file. A file that is
    /// not a valid store is renamed aside; the error says so.
    func load() -> (entries: [OfflineEntry], problem: ClientError?) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], nil) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return ([], setAside(because: "it cannot be read"))
        }
        switch OfflineStoreFormat.decode(Array(data)) {
        case .success(let entries): return (entries, nil)
        case .failure(let flaw): return ([], setAside(because: flaw.description))
        }
    }

    /// Replaces the file with `bytes`, durably.
    func save(_ bytes: [UInt8]) throws(ClientError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".new"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .offlineStoreFailed("cannot create \(directory): \(error.localizedDescription)")
        }
        // Readable by its owner only: it holds the values the client mirrors.
        let attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o600]
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: attributes) else {
            throw .offlineStoreFailed("cannot write \(temporary)")
        }
        do {
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
            defer { try? handle.close() }
            try handle.synchronize()
        } catch {
            throw .offlineStoreFailed("cannot flush \(temporary) to disk: \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            throw .offlineStoreFailed("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Renames the file to a name of its own, so the next save starts afresh
    /// and the old bytes stay for whoever wants to look at them.
    private func setAside(because detail: String) -> ClientError {
        let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
        do {
            try? FileManager.default.removeItem(atPath: aside)
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            return .offlineStoreSetAside(path: path, setAsideAs: aside, detail: detail)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            return .offlineStoreSetAside(path: path, setAsideAs: "nowhere (it was removed)", detail: detail)
        }
    }
}
