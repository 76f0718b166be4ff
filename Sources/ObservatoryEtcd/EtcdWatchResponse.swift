/// One message of a watch stream: the watch was created or canceled, events
/// happened, or (with neither) a progress notification.
public struct EtcdWatchResponse: Hashable, Sendable {
    /// The header; in a progress notification its revision is the one the
    /// watch has caught up to.
    public var header: EtcdResponseHeader
    /// The watch's identifier on its stream.
    public var watchID: Int64
    /// Whether this message confirms the watch's creation.
    public var created: Bool
    /// Whether etcd ended the watch.
    public var canceled: Bool
    /// When canceled because the start revision was compacted: the oldest revision kept.
    public var compactRevision: Int64
    /// etcd's reason for a cancellation, when it gave one.
    public var cancelReason: String
    /// The changes, in revision order.
    public var events: [EtcdWatchEvent]

    /// Creates a message.
    public init(
        header: EtcdResponseHeader, watchID: Int64 = 0, created: Bool = false, canceled: Bool = false,
        compactRevision: Int64 = 0, cancelReason: String = "", events: [EtcdWatchEvent] = []
    ) {
        self.header = header
        self.watchID = watchID
        self.created = created
        self.canceled = canceled
        self.compactRevision = compactRevision
        self.cancelReason = cancelReason
        self.events = events
    }

    /// Whether this is a progress notification: no events, no creation, no cancellation.
    public var isProgressNotification: Bool {
        events.isEmpty && !created && !canceled
    }

    /// Reads one line of the gateway's stream, `{"result": WatchResponse}`, or
    /// throws the error the line carries instead (`{"error": {…}}`).
    init(line: [UInt8]) throws(EtcdError) {
        let message = try EtcdJSON.object(from: line)
        if let error = message["error"] {
            if case .object(let errorObject) = error {
                throw EtcdError.gateway(object: errorObject, isWrite: false)
            }
            throw EtcdError.gateway(object: message, isWrite: false)
        }
        guard let result = try EtcdJSON.optionalObject(message, "result") else {
            throw EtcdError.invalidResponse("a watch message without result: \(EtcdJSON.preview(of: line))")
        }
        try self.init(json: result)
    }

    /// Reads a `WatchResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        var events: [EtcdWatchEvent] = []
        for event in try EtcdJSON.objects(json, "events") {
            events.append(try EtcdWatchEvent(json: event))
        }
        self.init(
            header: try EtcdResponseHeader(of: json), watchID: try EtcdJSON.integer(json, "watch_id"),
            created: try EtcdJSON.boolean(json, "created"), canceled: try EtcdJSON.boolean(json, "canceled"),
            compactRevision: try EtcdJSON.integer(json, "compact_revision"),
            cancelReason: try EtcdJSON.string(json, "cancel_reason"), events: events)
    }
}
