#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file operations, on POSIX calls. Retries interrupted calls and short writes.
public struct SystemFiles: StorageFiles {
    /// Creates the real file operations.
    public init() {}

    public func createDirectory(_ path: String) throws(StorageError) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            partial += "/" + component
            if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                throw StorageError.system("create the directory", path: partial, errorNumber: errno)
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw StorageError.system("inspect", path: path, errorNumber: errno) }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw StorageError.system("use as a directory", path: path, errorNumber: ENOTDIR)
        }
    }

    public func list(_ directory: String) throws(StorageError) -> [String] {
        guard let handle = opendir(directory) else {
            throw StorageError.system("list", path: directory, errorNumber: errno)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func open(_ path: String, truncate: Bool) throws(StorageError) -> Int32 {
        // Always appending: after a failed write is cut back, the next one lands at the
        // new end, not at the offset where the failed one stopped.
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | (truncate ? O_TRUNC : 0)
        let descriptor = retrying { Glibc.open(path, flags, 0o644) }
        guard descriptor >= 0 else { throw StorageError.system("open", path: path, errorNumber: errno) }
        return descriptor
    }

    public func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StorageError) {
        var written = 0
        while written < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let result = retrying { Glibc.write(descriptor, base + written, bytes.count - written) }
            guard result > 0 else {
                throw StorageError.system("write", path: path, errorNumber: result == 0 ? EIO : errno)
            }
            written += result
        }
    }

    public func truncate(_ descriptor: Int32, to length: Int, path: String) throws(StorageError) {
        guard retrying({ ftruncate(descriptor, off_t(length)) }) == 0 else {
            throw StorageError.system("truncate", path: path, errorNumber: errno)
        }
    }

    public func synchronize(_ descriptor: Int32, path: String) throws(StorageError) {
        guard retrying({ fdatasync(descriptor) }) == 0 else {
            throw StorageError.system("flush to disk", path: path, errorNumber: errno)
        }
    }

    public func synchronizeDirectory(_ path: String) throws(StorageError) {
        let descriptor = retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw StorageError.system("open", path: path, errorNumber: errno) }
        defer { _ = Glibc.close(descriptor) }
        guard retrying({ fsync(descriptor) }) == 0 else {
            throw StorageError.system("flush to disk", path: path, errorNumber: errno)
        }
    }

    public func rename(_ path: String, to newPath: String) throws(StorageError) {
        guard Glibc.rename(path, newPath) == 0 else {
            throw StorageError.system("rename to \(newPath)", path: path, errorNumber: errno)
        }
    }

    public func remove(_ path: String) throws(StorageError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw StorageError.system("remove", path: path, errorNumber: errno)
        }
    }

    public func read(_ path: String) throws(StorageError) -> [UInt8] {
        let descriptor = retrying { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw StorageError.system("open", path: path, errorNumber: errno) }
        defer { _ = Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StorageError.system("inspect", path: path, errorNumber: errno)
        }
        let size = Int(status.st_size)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size, let base = buffer.baseAddress {
                let result = retrying { Glibc.read(descriptor, base + count, size - count) }
                guard result > 0 else {
                    failure = result < 0 ? errno : 0
                    return
                }
                count += result
            }
        }
        guard failure == 0 else { throw StorageError.system("read", path: path, errorNumber: failure) }
        return bytes
    }

    public func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    public func lock(_ path: String) throws(StorageError) -> Int32? {
        let descriptor = retrying { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else { throw StorageError.system("open", path: path, errorNumber: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            _ = Glibc.close(descriptor)
            guard number == EWOULDBLOCK else { throw StorageError.system("lock", path: path, errorNumber: number) }
            return nil
        }
        return descriptor
    }

    /// Repeats a call interrupted by a signal.
    private func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
