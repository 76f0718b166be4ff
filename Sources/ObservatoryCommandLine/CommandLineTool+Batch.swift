import ObservatoryClient
import ObservatoryWire

extension CommandLineTool {
    /// Sends a batch and prints `revision N`, then one line per operation:
    /// `set KEY (vN)`, `set KEY unchanged (vN)`, `delete KEY (vN)`, `check KEY (vN)`.
    static func batch(
        _ operations: [ObservatoryWire.BatchOperation<JSONValue>], on client: ObservatoryClient, raw: Bool,
        output: CommandLineOutput
    ) async throws(ClientError) {
        let reply = try await client.send(.batch(operations: operations, requestId: nil))
        if raw { return output.standardOutput(ChangeFormatter.text(.object(reply))) }
        output.standardOutput("revision \(reply["revision"]?.integerValue ?? 0)")
        let results = reply["results"]?.arrayValue ?? []
        for (operation, result) in zip(operations, results) {
            let version = result["version"]?.integerValue ?? 0
            let unchanged = result["changed"] == false ? " unchanged" : ""
            output.standardOutput("\(operation.name) \(operation.key)\(unchanged) (v\(version))")
        }
    }

    /// A batch's error names the operation that failed, with its index and key.
    static func batchMessage(for error: ClientError, operations: [ObservatoryWire.BatchOperation<JSONValue>]) -> String
    {
        guard let index = error.operationIndex, operations.indices.contains(index) else { return "\(error)" }
        let operation = operations[index]
        return "operation \(index) (\(operation.name) \(operation.key)) failed, nothing was applied: \(error)"
    }
}
