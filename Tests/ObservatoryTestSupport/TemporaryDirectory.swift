import Foundation

/// A fresh directory under the system's temporary folder, removed when the test is done.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "observatory-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func path(of name: String) -> String {
        path + "/" + name
    }

    /// The names of the directory's files, sorted.
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}
