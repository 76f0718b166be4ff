import Foundation
import Testing

@testable import ObservatoryServer

/// `Config/observatory.json` is documented as every setting with its default
/// (`ServerConfigurationTests` checks the defaults; this checks that none is
/// missing), and a file with a syntax slip says where it is.
@Suite struct ExampleConfigurationTests {
    private var exampleURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/observatory.json")
    }

    /// Every setting the loader knows, dotted as in the file (the replaced top-level `tokens` aside).
    private var knownSettings: [String] {
        ServerConfiguration.settingNames.filter { !["limits", "auth", "cluster", "tokens"].contains($0) }
            + ServerLimits.settingNames.map { "limits.\($0)" }
            + AuthConfiguration.settingNames.map { "auth.\($0)" }
            + ClusterConfiguration.settingNames.map { "cluster.\($0)" }
    }

    /// The dotted names of every member of the file's objects, one level into each section.
    private func settings(in object: [String: Any], under path: String = "") -> [String] {
        object.flatMap { key, value -> [String] in
            let name = path.isEmpty ? key : "\(path).\(key)"
            if path.isEmpty, let inner = value as? [String: Any] { return settings(in: inner, under: name) }
            return [name]
        }
    }

    @Test func theExampleFileListsEverySettingTheLoaderKnows() throws {
        let data = try Data(contentsOf: exampleURL)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let listed = Set(settings(in: object))
        let missing = knownSettings.filter { !listed.contains($0) }
        #expect(missing.isEmpty, "Config/observatory.json lacks \(missing)")
    }

    @Test func aMissingCommaIsReportedWithLineColumnAndAHint() {
        let file = "{\n  \"port\": 7070\n  \"host\": \"127.0.0.1\"\n}\n"
        #expect {
            try ServerConfiguration.decode(Data(file.utf8), path: "my.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains("'my.json' is not valid JSON: line 3, column 3") && text.contains("comma is missing")
        }
    }

    @Test func aTrailingCommaIsAnErrorWithItsPlace() {
        let file = "{\n  \"port\": 7070,\n}\n"
        #expect {
            try ServerConfiguration.decode(Data(file.utf8), path: "my.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains("line 3, column 1") && text.contains("a comma before a closing } is not allowed")
        }
    }
}
