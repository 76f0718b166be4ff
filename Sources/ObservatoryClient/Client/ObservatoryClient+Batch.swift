import ObservatoryWire

extension ObservatoryClient {
    /// Applies several changes all or nothing, at one revision (a batch).
    ///
    /// Every `set` and `delete` of `steps` is applied, or none is: when any
    /// condition fails (an `ifVersion`, a `check`, a `delete` of a missing key),
    /// or the server refuses a step, nothing changes and the call throws the
    /// error of the first failing step, whose ``ClientError/operationIndex`` is
    /// that step's position in `steps`:
    ///
    ///     do {
    ///         let outcome = try await client.batch([
    ///             .check("lock.printer", ifVersion: 41),
    ///             .set("job.7.state", "printing"),
    ///             .delete("queue.7"),
    ///         ])
    ///         print("applied at revision \(outcome.revision)")
    ///     } catch let error where error.serverError?.code == .conflict {
    ///         print("step \(error.operationIndex ?? 0) found version \(error.currentVersion ?? 0)")
    ///     }
    ///
    /// Observers of the keys get the batch's changes as one run of events, all
    /// with the batch's revision as their version; this client's mirrors apply
    /// a run as one step, so an observer of one mirror never finds another
    /// mirror without its part of the batch.
    ///
    /// The batch carries one `requestId`: if the connection breaks before the
    /// reply, the client sends it again after the reconnect, as it does a
    /// ``set(_:_:ifVersion:sessionBound:ttl:)``, and the server applies it once.
    ///
    /// - Parameter steps: 1 to 128 steps, each on a different key.
    /// - Returns: The batch's revision and one result per step, in order.
    /// - Throws: ``ClientError/server(_:)`` with the failing step's code
    ///   (`conflict`, `not_found`, `forbidden`, `invalid_key`, `value_too_large`,
    ///   `limit_exceeded`, `bad_request` for a repeated key or too many steps) and
    ///   its ``ClientError/operationIndex``; ``ClientError/Code/unencodableValue``
    ///   when a step's value cannot be encoded (nothing is sent).
    @discardableResult
    public func batch(_ steps: [BatchStep]) async throws(ClientError) -> BatchOutcome {
        var operations: [BatchOperation] = []
        operations.reserveCapacity(steps.count)
        for step in steps {
            switch step.operation {
            case .success(let operation): operations.append(operation)
            case .failure(let error): throw error
            }
        }
        let operation = Operation<JSONValue>.batch(operations: operations, requestId: RequestIdentifier.make())
        guard case .batch(let revision, let results, _) = try await write(operation) else {
            throw .badReply("the reply to batch has the fields of another op")
        }
        return BatchOutcome(revision: revision, results: results)
    }
}
