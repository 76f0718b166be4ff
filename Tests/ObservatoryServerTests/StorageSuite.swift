import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A suite of storage tests in this process, each test with a data directory of
/// its own and the store opened on it as a server opens it: restarts are a close
/// and an open of the same directory; a crash is `abandon()`, which stops writing
/// at once and leaves the files as `kill -9` would (the kernel keeps what `write` took).
protocol StorageSuite {
    /// The test's directory; the data directory is `data` inside it.
    var directory: TemporaryDirectory { get }
}

extension StorageSuite {
    var alice: Author { Author(name: "alice", session: "s1") }
    var bob: Author { Author(name: "bob", session: "s2") }

    /// Opens the store on the data directory with `fsync` and the given file operations.
    func open(
        _ fsync: FsyncPolicy = .everysec, files: any StorageFiles = SystemFiles(), compactionLogBytes: Int = 64 << 20,
        afterCompactionStep: @escaping @Sendable (CompactionStep) -> Bool = { _ in true }
    ) throws -> SessionFixture {
        let configuration = testConfiguration {
            $0.fsync = fsync
            $0.dataDirectory = directory.path(of: "data")
        }
        let options = StorageOptions(
            fsync: fsync, compactionLogBytes: compactionLogBytes, files: files,
            afterCompactionStep: afterCompactionStep)
        return try SessionFixture(configuration: configuration, storageOptions: options)
    }

    /// The storage under `context`'s store.
    func storage(of context: SessionFixture) throws -> Storage {
        try #require(context.store.storage)
    }

    /// Every entry of `store`, in key order.
    func contents(of store: SharedStore) -> [RawValueEntry] {
        store.snapshot(.prefix(""))
    }
}
