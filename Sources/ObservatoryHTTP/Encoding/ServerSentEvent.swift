/// One event of a Server-Sent Events stream (`text/event-stream`), ready to encode.
///
/// ```swift
/// let event = ServerSentEvent(id: "7f3a:42", event: "update", data: eventJSON)
/// send(ChunkedBodyEncoder.chunk(event.encoded()))
/// send(ChunkedBodyEncoder.chunk(ServerSentEvent.comment("keepalive")))
/// ```
///
/// Data with line breaks becomes several `data:` lines, which the browser joins with
/// LF again. A line break in the id or event name would start a new field that the
/// caller did not write, so those are removed; a NUL in the id would make browsers
/// ignore it, so that is removed too.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `id:` field: what the browser sends back as `Last-Event-ID` after a reconnect.
    public var id: String?
    /// The `event:` field, the event's type; `nil` means the default, `message`.
    public var event: String?
    /// The `data:` payload; may span lines.
    public var data: String
    /// The `retry:` field: how long the browser waits before reconnecting, in milliseconds.
    public var retryMilliseconds: Int?

    /// Creates an event.
    public init(id: String? = nil, event: String? = nil, data: String, retryMilliseconds: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retryMilliseconds = retryMilliseconds
    }

    /// The event's lines, ending with the empty line that dispatches it.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.utf8.count + 32)
        if let id {
            Self.appendField("id", id, to: &bytes, removingNull: true)
        }
        if let event {
            Self.appendField("event", event, to: &bytes, removingNull: false)
        }
        if let retryMilliseconds {
            Self.appendField("retry", String(max(0, retryMilliseconds)), to: &bytes, removingNull: false)
        }
        Self.appendLines(prefix: "data: ", of: data, to: &bytes)
        bytes.append(ASCII.lineFeed)
        return bytes
    }

    /// A comment (`: text`), which clients ignore: sent every few seconds, it keeps
    /// proxies from closing an idle stream.
    public static func comment(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        appendLines(prefix: ": ", of: text, to: &bytes)
        return bytes
    }

    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8], removingNull: Bool) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(ASCII.colon)
        bytes.append(ASCII.space)
        for byte in value.utf8
        where byte != ASCII.lineFeed && byte != ASCII.carriageReturn && !(removingNull && byte == 0) {
            bytes.append(byte)
        }
        bytes.append(ASCII.lineFeed)
    }

    /// One `prefix` line per line of `text`, split at CR LF, LF or CR as the
    /// event-stream parser splits them.
    private static func appendLines(prefix: String, of text: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: prefix.utf8)
        var afterCarriageReturn = false
        for byte in text.utf8 {
            if byte == ASCII.lineFeed && afterCarriageReturn {
                afterCarriageReturn = false
                continue
            }
            afterCarriageReturn = byte == ASCII.carriageReturn
            if byte == ASCII.lineFeed || byte == ASCII.carriageReturn {
                bytes.append(ASCII.lineFeed)
                bytes.append(contentsOf: prefix.utf8)
            } else {
                bytes.append(byte)
            }
        }
        bytes.append(ASCII.lineFeed)
    }
}
