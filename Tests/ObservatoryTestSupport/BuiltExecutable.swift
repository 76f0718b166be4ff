import Foundation

/// Finds an executable of this package (`observatoryd`, `observatory`, a test
/// helper) where `swift build` put it: next to the test bundle, or a few
/// folders above it, whatever the build's scratch path.
public enum BuiltExecutable {
    /// The executable `name` of this build.
    /// - Throws: `TestFailure` naming the executable when it was not built.
    public static func url(named name: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw TestFailure(description: "\(name) was not built next to the tests (run `swift build` first)")
    }
}
