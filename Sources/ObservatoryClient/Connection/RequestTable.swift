import ObservatoryWire

/// What a request's sender is called with: the reply, or why it will never come.
typealias RequestCompletion = @Sendable (Result<ReceivedReply, ClientError>) -> Void

/// The requests on one connection that wait for their reply: allocates request
/// ids and matches every reply to its request by id.
///
/// A plain value with no locking and no I/O, so the matching rules are unit
/// tested on their own; the client's machine keeps one. Ids are integers
/// that grow for the lifetime of the client, so a late reply from a previous
/// connection can never be mistaken for an answer on the current one.
struct RequestTable<Completion> {
    private var nextIdentifier: Int64
    private var waiting: [Int64: Completion] = [:]

    /// Creates an empty table whose first id is `firstIdentifier`.
    init(firstIdentifier: Int64 = 1) {
        nextIdentifier = firstIdentifier
    }

    /// How many requests wait for a reply.
    var count: Int { waiting.count }

    /// Allocates the next id and remembers what to do with its reply.
    mutating func register(_ completion: Completion) -> Int64 {
        let identifier = nextIdentifier
        nextIdentifier += 1
        waiting[identifier] = completion
        return identifier
    }

    /// Takes the completion of the request with `identifier` out of the table;
    /// nil for an id that is unknown or already answered.
    mutating func complete(_ identifier: Int64) -> Completion? {
        waiting.removeValue(forKey: identifier)
    }

    /// Takes every waiting completion out of the table, oldest request first,
    /// for failing them all when the connection ends. Ids keep growing.
    mutating func removeAll() -> [Completion] {
        let ordered = waiting.sorted { $0.key < $1.key }.map(\.value)
        waiting.removeAll()
        return ordered
    }
}
