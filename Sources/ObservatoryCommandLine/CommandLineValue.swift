import ObservatoryWire

/// How `observatory set` reads its VALUE argument.
///
/// The rule, in full (docs/cli.md, "Values"):
///
/// - `-` reads the value from standard input, `@PATH` from a file; their
///   content is JSON (a bare word is not enough there), or, with `--string`,
///   a string exactly as read. So a value of any size the server accepts can be
///   set, past the shell's limit on one argument.
/// - Text that is JSON is that JSON: `42`, `true`, `null`, `'"quoted"'`, `'{"on":true}'`.
/// - Text that is not JSON is a string (`red`, `hello world`, `12:30`), unless it
///   looks like JSON with a typo: it starts like an object, array or string
///   (`{`, `[`, `"`); it is made of a number's characters but is not a JSON
///   number (`01`, `1e999`, `1.`, `+5`); or it is a near miss of `true`,
///   `false` or `null` (`tru`, `nul`, `True`, `NULL`, `ture`). Those are refused
///   with a hint, since the user most likely meant JSON.
/// - `--string` takes the text as a string, whatever it looks like.
///
/// The strings `-` and `@x` themselves are set as JSON: `'"-"'`, `'"@x"'`.
public enum CommandLineValue: Sendable, Equatable {
    /// The value is the argument's text.
    case text(String)
    /// The value is what standard input holds (`-`).
    case standardInput
    /// The value is what the file at this path holds (`@PATH`).
    case file(String)

    /// What a VALUE argument names.
    public init(argument: String) {
        if argument == "-" {
            self = .standardInput
        } else if argument.hasPrefix("@"), argument.count > 1 {
            self = .file(String(argument.dropFirst()))
        } else {
            self = .text(argument)
        }
    }

    /// Reads the value this names, through `input` for `-` and `@PATH`.
    /// - Parameter asString: `--string`: the text or content is the string itself.
    /// - Throws: ``CommandLineUsageError`` saying what to fix.
    func resolve(asString: Bool, input: CommandLineInput) throws(CommandLineUsageError) -> JSONValue {
        switch self {
        case .text(let text):
            return asString ? .string(text) : try Self.value(from: text)
        case .standardInput:
            return try Self.content(try read("standard input") { try input.readStandardInput() }, asString: asString)
        case .file(let path):
            return try Self.content(try read("file '\(path)'") { try input.readFile(path) }, asString: asString)
        }
    }

    private func read(_ what: String, _ body: () throws -> [UInt8]) throws(CommandLineUsageError) -> (String, [UInt8]) {
        do {
            return (what, try body())
        } catch {
            throw CommandLineUsageError("set: cannot read VALUE from \(what): \(error)")
        }
    }

    /// The value in bytes read from standard input or a file.
    private static func content(_ source: (String, [UInt8]), asString: Bool) throws(CommandLineUsageError)
        -> JSONValue
    {
        let (what, bytes) = source
        if asString {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CommandLineUsageError("set: \(what) is not UTF-8 text, so it cannot be a string")
            }
            return .string(text)
        }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw CommandLineUsageError(
                "set: \(what) is not valid JSON (\(error)); add --string to store the text as a string")
        }
    }

    /// JSON when the text is JSON; other text is a string, unless it looks like JSON with a typo.
    static func value(from text: String) throws(CommandLineUsageError) -> JSONValue {
        let parseError: JSONParseError
        do {
            return try JSONValue.parse(text)
        } catch {
            parseError = error
        }
        let word = text.trimmingSpaces
        guard let first = word.first else { return .string(text) }
        if "{[\"".contains(first) {
            throw CommandLineUsageError(
                "VALUE is not valid JSON (\(parseError)); quote a string that starts with \(first) as JSON")
        }
        if looksLikeNumber(word) {
            throw CommandLineUsageError(
                "VALUE '\(text)' looks like a number but is not one in JSON (\(parseError.kind)); "
                    + "write a JSON number (such as 1, -2.5 or 1e6), or set it as a string: '\"\(text)\"' or --string")
        }
        if let meant = nearMissLiteral(word) {
            throw CommandLineUsageError(
                "VALUE '\(text)' looks like \(meant) misspelled; write \(meant), "
                    + "or set it as a string: '\"\(text)\"' or --string")
        }
        return .string(text)
    }

    /// Made only of a number's characters and starting like one: `01`, `1e999`, `1.2.3`, `+5`.
    static func looksLikeNumber(_ word: Substring) -> Bool {
        let characters = Array(word)
        let startsLikeANumber =
            characters[0].isASCIIDigit
            || (characters.count > 1 && "+-.".contains(characters[0]) && characters[1].isASCIIDigit)
        return startsLikeANumber && characters.allSatisfy { $0.isASCIIDigit || "+-.eE".contains($0) }
    }

    /// The literal a word nearly spells: another case (`True`), a beginning of three
    /// letters or more (`tru`, `nul`), or two neighbouring letters swapped (`ture`).
    static func nearMissLiteral(_ word: Substring) -> String? {
        let lower = word.lowercased()
        for literal in ["true", "false", "null"] {
            if lower == literal || (lower.count >= 3 && literal.hasPrefix(lower)) { return literal }
            let (a, b) = (Array(lower), Array(literal))
            guard a.count == b.count else { continue }
            let differences = a.indices.filter { a[$0] != b[$0] }
            if differences.count == 2, differences[1] == differences[0] + 1,
                a[differences[0]] == b[differences[1]], a[differences[1]] == b[differences[0]]
            {
                return literal
            }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = self[...].drop { $0 == " " }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
