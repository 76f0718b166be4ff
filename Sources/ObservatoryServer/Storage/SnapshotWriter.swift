/// Writes a copy of the store into a snapshot file: a header, one `set` record per
/// key in byte order of the keys (so loading it builds the key index without
/// sorting), the recent changes and the remembered writes, and an end record that
/// counts the keys, then flushes the file to disk.
///
/// Records are gathered into buffers of about a megabyte, so a million keys take a
/// hundred writes, not a million.
struct SnapshotWriter {
    let files: any StorageFiles
    let path: String
    private static let bufferBytes = 1 << 20

    /// Writes `frozen` and flushes the file.
    ///
    /// - Parameters:
    ///   - isCancelled: checked between buffers; storage closing stops the snapshot.
    ///   - afterWriting: called once every record is written, before the flush;
    ///     `false` stops there (a test's crash).
    /// - Returns: whether the snapshot is whole and on disk.
    /// - Throws: the file operation that failed; the temporary file is then removed.
    @discardableResult
    func write(
        _ frozen: FrozenState, header: StorageHeader, isCancelled: () -> Bool, afterWriting: () -> Bool
    ) throws(StorageError) -> Bool {
        let descriptor = try files.open(path, truncate: true)
        var isOpen = true
        defer { if isOpen { files.close(descriptor) } }
        do {
            guard try writeRecords(of: frozen, header: header, to: descriptor, isCancelled: isCancelled) else {
                return false
            }
            guard afterWriting() else { return false }
            try files.synchronize(descriptor, path: path)
            files.close(descriptor)
            isOpen = false
            return true
        } catch {
            try? files.remove(path)
            throw error
        }
    }

    private func writeRecords(
        of frozen: FrozenState, header: StorageHeader, to descriptor: Int32, isCancelled: () -> Bool
    ) throws(StorageError) -> Bool {
        let view = frozen.view
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.bufferBytes + 4_096)
        RecordFraming.append(.header(header), to: &buffer)
        var failure: StorageError?
        var cancelled = false
        var count: Int64 = 0
        view.keys.forEach(withPrefix: "") { key in
            guard let entry = view.entries[key] else { return true }
            RecordFraming.append(.set(entry), to: &buffer)
            count += 1
            guard buffer.count >= Self.bufferBytes else { return true }
            if isCancelled() {
                cancelled = true
                return false
            }
            failure = flush(&buffer, to: descriptor)
            return failure == nil
        }
        if let failure { throw failure }
        if cancelled { return false }
        for change in frozen.history.all {
            RecordFraming.append(.changeTime(change.at), to: &buffer)
            RecordFraming.append(.history(change.event), to: &buffer)
            if buffer.count >= Self.bufferBytes, let failure = flush(&buffer, to: descriptor) { throw failure }
        }
        for write in frozen.appliedWrites.all(now: AppliedWrites.wallMilliseconds()) {
            RecordFraming.append(.appliedWrite(write), to: &buffer)
            if buffer.count >= Self.bufferBytes, let failure = flush(&buffer, to: descriptor) { throw failure }
        }
        RecordFraming.append(.snapshotEnd(entryCount: count), to: &buffer)
        if let failure = flush(&buffer, to: descriptor) { throw failure }
        return true
    }

    private func flush(_ buffer: inout [UInt8], to descriptor: Int32) -> StorageError? {
        defer { buffer.removeAll(keepingCapacity: true) }
        do {
            try files.write(descriptor, buffer, path: path)
            return nil
        } catch {
            return error
        }
    }
}
