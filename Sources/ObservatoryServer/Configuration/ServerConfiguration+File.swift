import Foundation

extension ServerConfiguration {
    /// Reads a tokens file: a JSON array of token objects, as in `auth.tokens`.
    public static func loadTokens(path: String, readFile: (String) throws -> Data) throws -> [AccessToken] {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw ConfigurationError.unreadableFile(path: path, reason: error.localizedDescription)
        }
        let json = try ConfigurationFileSyntax.parse(data, path: path)
        do {
            return try json.decode([AccessToken].self)
        } catch let error as ConfigurationError {
            throw ConfigurationError.malformedFile(
                path: path, reason: "\(error) (an array of token objects is expected)")
        } catch {
            throw ConfigurationError.malformedFile(path: path, reason: "it must hold a JSON array of token objects")
        }
    }

    /// Reads and strictly decodes one configuration file (not yet validated).
    public static func load(path: String, readFile: (String) throws -> Data) throws -> ServerConfiguration {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw ConfigurationError.unreadableFile(path: path, reason: error.localizedDescription)
        }
        return try decode(data, path: path)
    }

    /// Strictly decodes the bytes of a configuration file; `path` is only for messages.
    ///
    /// The bytes are read by the project's own JSON parser (the one that reads
    /// every frame), so a syntax error is reported with its line and column (and a
    /// trailing comma is one); then the settings are decoded strictly from the
    /// parsed value, with no second parser.
    public static func decode(_ data: Data, path: String) throws -> ServerConfiguration {
        let json = try ConfigurationFileSyntax.parse(data, path: path)
        do {
            return try json.decode(ServerConfiguration.self)
        } catch let error as ConfigurationError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError.malformedFile(path: path, reason: context.debugDescription)
        } catch {
            throw ConfigurationError.malformedFile(path: path, reason: String(describing: error))
        }
    }
}
