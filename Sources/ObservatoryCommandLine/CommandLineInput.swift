/// Where `observatory set KEY -` and `set KEY @PATH` read their value from.
///
/// The executable passes readers of its real standard input and files; tests
/// pass closures that return bytes, so ``CommandLineArguments/parse(_:environment:input:)``
/// needs no process around it.
public struct CommandLineInput: Sendable {
    /// Reads all of standard input.
    public let readStandardInput: @Sendable () throws -> [UInt8]
    /// Reads all of the file at a path.
    public let readFile: @Sendable (String) throws -> [UInt8]

    /// Creates an input from two readers.
    public init(
        readStandardInput: @escaping @Sendable () throws -> [UInt8],
        readFile: @escaping @Sendable (String) throws -> [UInt8]
    ) {
        self.readStandardInput = readStandardInput
        self.readFile = readFile
    }

    /// An input with nothing to read: every read fails, saying so.
    public static let none = CommandLineInput(
        readStandardInput: { throw CommandLineUsageError("no standard input here") },
        readFile: { _ in throw CommandLineUsageError("no files here") })
}
