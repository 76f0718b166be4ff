import ObservatoryHTTP
import ObservatoryWire

/// The Server-Sent Events of `GET /events` (docs/protocol.md): the response head,
/// the event that starts a stream, and each later reply or event of the session.
enum StreamEvent {
    /// The head of an event stream; chunked for HTTP/1.1, else ended by the close.
    static func head(chunked: Bool) -> [UInt8] {
        var head = HTTPResponseHead(
            status: .ok,
            headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store"])
        if chunked {
            head.headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            head.headers.add(name: "Connection", value: "close")
        }
        return head.encoded()
    }

    /// The first event, from the `observe` reply: `snapshot`; `reset` when the
    /// client asked to resume and could not; a comment when it resumed.
    static func start(reply line: ArraySlice<UInt8>, resuming: Bool) -> [UInt8] {
        guard case .object(var fields)? = try? JSONValue.parse(line) else { return [] }
        let resumed = fields["resumed"]?.boolValue == true
        if resumed { return ServerSentEvent.comment("resumed") }
        fields["ok"] = nil
        fields["id"] = nil
        fields["resumed"] = nil
        let data = String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
        return ServerSentEvent(event: resuming ? "reset" : "snapshot", data: data).encoded()
    }

    /// A later frame of the session: a change as `update` or `delete` with the id
    /// `EPOCH:VERSION`, the data exactly the protocol's event; `shutdown`; or an
    /// `error` (the `slow_consumer` that ends the stream). The error's `revision`
    /// becomes its id, `EPOCH:REVISION`: the browser reconnects with it as its
    /// `Last-Event-ID`, so the stream resumes where nothing was missed, not after
    /// the last event it saw (which may be a coalesced one, ahead of a dropped event).
    ///
    /// Only the line's outline is read (its event name, version and error
    /// revision): the line itself is the data, as the store encoded it once for
    /// every observer, so it is never decoded into a tree here.
    static func encode(line: ArraySlice<UInt8>, epoch: String) -> [UInt8] {
        guard let outline = MessageOutline(line: line) else { return [] }
        let data = String(decoding: line, as: UTF8.self)
        guard let name = outline.event else {
            let id = outline.errorRevision.map { "\(epoch):\($0)" }
            return ServerSentEvent(id: id, event: "error", data: data).encoded()
        }
        let id = outline.version.map { "\(epoch):\($0)" }
        return ServerSentEvent(id: id, event: name, data: data).encoded()
    }

    /// The revision a `Last-Event-ID` names, when it is `EPOCH:VERSION` of this form.
    static func resumePoint(lastEventID: String) -> (epoch: String, revision: Int64)? {
        guard let colon = lastEventID.lastIndex(of: ":"),
            let revision = Int64(lastEventID[lastEventID.index(after: colon)...]), revision >= 0
        else { return nil }
        let epoch = String(lastEventID[..<colon])
        guard !epoch.isEmpty else { return nil }
        return (epoch, revision)
    }
}
