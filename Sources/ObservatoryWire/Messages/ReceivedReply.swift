/// A reply as the client receives it, before it knows which op it answers.
///
/// Replies do not name their op, so the client matches ``id`` (or order) to its
/// pending request and then reads the fields with ``payload(for:)``.
public struct ReceivedReply: Sendable, Equatable {
    /// The echoed request id; `nil` when the server sent `null`.
    public var id: RequestID?
    /// The reply's whole object on success (including `ok` and `id`), or the error on failure.
    public var outcome: Result<JSONObject, WireError>

    /// Creates a received reply.
    public init(id: RequestID?, outcome: Result<JSONObject, WireError>) {
        self.id = id
        self.outcome = outcome
    }

    /// The success fields of a reply to an op of `kind`.
    ///
    /// - Throws: The server's ``WireError`` if the reply is a failure; a `bad_frame`
    ///   ``WireError`` naming the field if the success fields are malformed.
    public func payload(for kind: OperationKind) throws(WireError) -> ReplyPayload {
        let object = try outcome.get()
        return try ReplyPayload.decode(kind, from: FieldReader(object, errorCode: .badFrame, context: "server reply: "))
    }

    /// The typed ``Reply`` for a reply to an op of `kind`; a failure stays a failure.
    ///
    /// - Throws: A `bad_frame` ``WireError`` if the success fields are malformed.
    public func reply(for kind: OperationKind) throws(WireError) -> Reply {
        switch outcome {
        case .success:
            return .success(id: id, try payload(for: kind))
        case .failure(let error):
            return .failure(id: id, error)
        }
    }
}
