/// The file operations storage uses: a seam, so tests can make any of them fail
/// (a full disk, an I/O error) without a broken disk. `SystemFiles` is the real one.
///
/// Every operation throws a `StorageError` that names the operation, the path and
/// the system's reason.
public protocol StorageFiles: Sendable {
    /// Creates `path` and any missing parents; succeeds if it already exists.
    func createDirectory(_ path: String) throws(StorageError)
    /// The names of the entries of a directory (no `.` or `..`).
    func list(_ directory: String) throws(StorageError) -> [String]
    /// Opens `path` for appending, creating it if needed, and returns its descriptor.
    /// With `truncate`, an existing file is emptied first.
    func open(_ path: String, truncate: Bool) throws(StorageError) -> Int32
    /// Writes all of `bytes` at the end of the file.
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StorageError)
    /// Cuts the file to `length` bytes.
    func truncate(_ descriptor: Int32, to length: Int, path: String) throws(StorageError)
    /// Forces the file's data to disk (`fdatasync`).
    func synchronize(_ descriptor: Int32, path: String) throws(StorageError)
    /// Forces a directory's entries (created, renamed, removed files) to disk.
    func synchronizeDirectory(_ path: String) throws(StorageError)
    /// Renames a file, replacing the target if it exists.
    func rename(_ path: String, to newPath: String) throws(StorageError)
    /// Removes a file.
    func remove(_ path: String) throws(StorageError)
    /// The whole contents of a file.
    func read(_ path: String) throws(StorageError) -> [UInt8]
    /// Closes a descriptor (errors are of no use then, so none are thrown).
    func close(_ descriptor: Int32)
    /// Takes an exclusive lock on `path` (created if needed) for as long as the
    /// returned descriptor stays open; `nil` if another holder has it.
    func lock(_ path: String) throws(StorageError) -> Int32?
}

extension StorageFiles {
    /// Writes all of an array's bytes at the end of the file.
    func write(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(StorageError) {
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(StorageError) in try write(descriptor, raw, path: path) }
        }
        try outcome.get()
    }
}
