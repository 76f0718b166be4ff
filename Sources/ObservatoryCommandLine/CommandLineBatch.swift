import ObservatoryWire

/// How `observatory batch` reads its operations (docs/cli.md, "Batches").
///
/// The operations are JSON, read from standard input (no argument, or `-`), or
/// from a file (`@PATH`, or `PATH`): an array of operations, or an object whose
/// `ops` is that array, each operation as in the protocol's `batch`:
///
///     [{"op":"check","key":"lock.printer","ifVersion":41},
///      {"op":"set","key":"job.7.state","value":"printing","ttl":60},
///      {"op":"delete","key":"queue.7"}]
///
/// The shape is checked here, with the index of a wrong operation in the
/// message; the server checks the rest (keys, sizes, a repeated key).
enum CommandLineBatch {
    /// Reads the operations that `operands` name.
    static func operations(from operands: [String], input: CommandLineInput) throws(CommandLineUsageError)
        -> [BatchOperation<JSONValue>]
    {
        guard operands.count <= 1 else {
            throw CommandLineUsageError(
                "batch takes at most one FILE (or - for standard input), got \(operands.count) arguments")
        }
        let source = operands.first ?? "-"
        let what = source == "-" ? "standard input" : "file '\(Self.path(of: source))'"
        let bytes: [UInt8]
        do {
            bytes = source == "-" ? try input.readStandardInput() : try input.readFile(Self.path(of: source))
        } catch {
            throw CommandLineUsageError("batch: cannot read the operations from \(what): \(error)")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw CommandLineUsageError("batch: \(what) is not valid JSON (\(error))")
        }
        return try operations(in: document)
    }

    /// `@PATH` and `PATH` both name the file PATH.
    private static func path(of source: String) -> String {
        source.hasPrefix("@") && source.count > 1 ? String(source.dropFirst()) : source
    }

    /// The operations of a JSON document: an array, or an object with `ops`.
    static func operations(in document: JSONValue) throws(CommandLineUsageError) -> [BatchOperation<JSONValue>] {
        guard let elements = document.arrayValue ?? document.objectValue?["ops"]?.arrayValue else {
            throw CommandLineUsageError(
                "batch: the operations must be a JSON array, or an object whose \"ops\" is one, "
                    + "such as [{\"op\":\"set\",\"key\":\"a\",\"value\":1}]")
        }
        guard !elements.isEmpty else { throw CommandLineUsageError("batch: there are no operations") }
        var operations: [BatchOperation<JSONValue>] = []
        for (index, element) in elements.enumerated() {
            do throws(CommandLineUsageError) {
                operations.append(try operation(element))
            } catch {
                throw CommandLineUsageError("batch: operation \(index): \(error.message)")
            }
        }
        return operations
    }

    private static func operation(_ element: JSONValue) throws(CommandLineUsageError) -> BatchOperation<JSONValue> {
        guard let object = element.objectValue else {
            throw CommandLineUsageError("it must be an object such as {\"op\":\"delete\",\"key\":\"a\"}")
        }
        guard let key = object["key"]?.stringValue else { throw CommandLineUsageError("\"key\" must be a string") }
        let ifVersion = try integer("ifVersion", in: object)
        switch object["op"]?.stringValue {
        case "set":
            guard let value = object["value"] else { throw CommandLineUsageError("a set needs a \"value\"") }
            guard let sessionBound = object["ephemeral"].map({ $0.boolValue }) ?? false else {
                throw CommandLineUsageError("\"ephemeral\" must be true or false")
            }
            return .set(
                key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound,
                ttl: try integer("ttl", in: object))
        case "delete":
            return .delete(key: key, ifVersion: ifVersion)
        case "check":
            guard let ifVersion else { throw CommandLineUsageError("a check needs \"ifVersion\" (a version ≥ 0)") }
            return .check(key: key, ifVersion: ifVersion)
        default:
            throw CommandLineUsageError("\"op\" must be \"set\", \"delete\" or \"check\"")
        }
    }

    private static func integer(_ name: String, in object: JSONObject) throws(CommandLineUsageError) -> Int64? {
        guard let value = object[name] else { return nil }
        guard let number = value.integerValue else { throw CommandLineUsageError("\"\(name)\" must be a whole number") }
        return number
    }
}
