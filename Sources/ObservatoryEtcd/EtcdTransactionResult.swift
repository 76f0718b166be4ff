/// The answer to a transaction: which branch ran, and each of its operations' answers.
public struct EtcdTransactionResult: Hashable, Sendable {
    /// The answer's header; its revision is the transaction's when it wrote.
    public var header: EtcdResponseHeader
    /// Whether every compare held, so the `success` branch ran.
    public var succeeded: Bool
    /// The answers of the branch that ran, in its order.
    public var responses: [EtcdOperationResult]

    /// Creates a result.
    public init(header: EtcdResponseHeader, succeeded: Bool, responses: [EtcdOperationResult]) {
        self.header = header
        self.succeeded = succeeded
        self.responses = responses
    }

    /// Reads a `TxnResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        var responses: [EtcdOperationResult] = []
        for response in try EtcdJSON.objects(json, "responses") {
            responses.append(try EtcdOperationResult(json: response))
        }
        self.init(
            header: try EtcdResponseHeader(of: json), succeeded: try EtcdJSON.boolean(json, "succeeded"),
            responses: responses)
    }
}
