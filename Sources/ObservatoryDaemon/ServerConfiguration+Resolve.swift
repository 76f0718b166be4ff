import Foundation
import ObservatoryServer

extension ServerConfiguration {
    /// Builds the configuration the daemon runs with: defaults, then the file named by
    /// `--config` or `OBSERVATORY_CONFIG` (if any), then environment overrides, then
    /// flag overrides; then validates the result.
    ///
    /// - Parameters:
    ///   - flags: the overrides from the command line.
    ///   - environment: the overrides from environment variables.
    ///   - readFile: reads a file's bytes; injected so tests need no files.
    /// - Throws: `ConfigurationError` naming the setting at fault.
    public static func resolve(
        flags: ConfigurationOverrides,
        environment: ConfigurationOverrides,
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = (flags.configPath ?? environment.configPath)?.text {
            configuration = try load(path: path, readFile: readFile)
        }
        try environment.apply(to: &configuration)
        try flags.apply(to: &configuration)
        if let path = configuration.auth.tokensFile {
            configuration.auth.tokens += try loadTokens(path: path, readFile: readFile)
        }
        try configuration.validate()
        return configuration
    }
}
