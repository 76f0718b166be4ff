import Foundation

/// A fresh directory under the system's temporary folder, removed when the test is done.
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    /// Creates the directory.
    public init() throws {
        path = NSTemporaryDirectory() + "observatory-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    public func path(of name: String) -> String {
        path + "/" + name
    }

    /// The names of the directory's files, sorted.
    public func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}
