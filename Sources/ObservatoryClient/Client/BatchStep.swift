import ObservatoryWire

/// One operation of a batch sent with ``ObservatoryClient/batch(_:)``: a `set`,
/// a `delete`, or a `check` (a condition that writes nothing).
///
///     try await client.batch([
///         .check("lock.printer", ifVersion: 41),
///         .set("job.7.state", "printing"),
///         .delete("queue.7", ifVersion: 40),
///     ])
///
/// A value is encoded as JSON when the step is made; one that cannot be makes
/// the batch throw ``ClientError/Code/unencodableValue`` before anything is sent.
public struct BatchStep: Sendable {
    /// The operation to send, or why the value could not be encoded.
    let operation: Result<BatchOperation, ClientError>

    /// A step made of an operation as the protocol has it: for JSON read from
    /// elsewhere, as the command-line tool's `batch` does.
    public init(_ operation: BatchOperation) {
        self.operation = .success(operation)
    }

    private init(failure: ClientError) {
        self.operation = .failure(failure)
    }

    /// Sets `key` to `value`, as ``ObservatoryClient/set(_:_:ifVersion:sessionBound:ttl:)`` does.
    /// - Parameters:
    ///   - key: The key to write.
    ///   - value: The new value; any `Encodable` that encodes as JSON.
    ///   - ifVersion: Only if the key is at this version (0: only if it does not
    ///     exist); otherwise the whole batch fails with `conflict`.
    ///   - sessionBound: Bind the key to this client's session (`"ephemeral"` on the wire).
    ///   - ttl: Make it an expiring key, deleted this many seconds (1 to 31,536,000) after the batch.
    public static func set<Value: Encodable>(
        _ key: String, _ value: Value, ifVersion: Int64? = nil, sessionBound: Bool = false, ttl: Int64? = nil
    ) -> BatchStep {
        do {
            let encoded = try JSONValue(encoding: value)
            return BatchStep(
                .set(key: key, value: encoded, ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl))
        } catch {
            return BatchStep(failure: .unencodableValue(key: key, detail: String(describing: error)))
        }
    }

    /// Deletes `key`; the batch fails with `not_found` when it does not exist,
    /// or with `conflict` when `ifVersion` is given and does not match.
    public static func delete(_ key: String, ifVersion: Int64? = nil) -> BatchStep {
        BatchStep(.delete(key: key, ifVersion: ifVersion))
    }

    /// A condition: the batch applies only if `key` is at `ifVersion` (0: only
    /// if it does not exist), else it fails with `conflict`. Writes nothing.
    public static func check(_ key: String, ifVersion: Int64) -> BatchStep {
        BatchStep(.check(key: key, ifVersion: ifVersion))
    }
}
