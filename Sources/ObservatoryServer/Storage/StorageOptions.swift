/// How storage behaves: the policy, the compaction threshold, and the seams tests use.
public struct StorageOptions: Sendable {
    /// When changes are forced to disk.
    public var fsync: FsyncPolicy
    /// Log bytes written since the last snapshot beyond which a compaction starts.
    public var compactionLogBytes: Int
    /// The file operations; tests pass failing ones.
    public var files: any StorageFiles
    /// Called after each compaction step; returning `false` stops storage there as
    /// a crash would (files as they are, nothing more written). For tests.
    public var afterCompactionStep: @Sendable (CompactionStep) -> Bool
    /// How many recent changes start-up keeps for resuming observers (`limits.historyChanges`).
    public var historyChanges = ServerLimits().historyChanges
    /// How many `requestId`s start-up remembers at most (`limits.maxRequestIds`).
    public var maxRequestIds = ServerLimits().maxRequestIds
    /// How long an everysec fsync may run before writes stop being acknowledged, in nanoseconds.
    public var stalledSyncNanoseconds: UInt64 = 2_000_000_000

    /// Options for `fsync`, with the real file operations.
    public init(
        fsync: FsyncPolicy, compactionLogBytes: Int = 64 << 20, files: any StorageFiles = SystemFiles(),
        afterCompactionStep: @escaping @Sendable (CompactionStep) -> Bool = { _ in true }
    ) {
        self.fsync = fsync
        self.compactionLogBytes = compactionLogBytes
        self.files = files
        self.afterCompactionStep = afterCompactionStep
    }
}
