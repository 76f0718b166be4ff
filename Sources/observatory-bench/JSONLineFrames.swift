/// observatoryd's newline-delimited JSON, encoded and scanned with the least work:
/// requests are built from byte literals, and a received line is classified by its
/// first bytes or by one member name, never decoded.
enum JSONLineFrames {
    /// A line longer than the server's largest frame (1 MiB) plus slack is not one of its frames.
    static let longestLine = 2 << 20

    private static let okPrefix = Array(#"{"ok":true"#.utf8)
    private static let failurePrefix = Array(#"{"ok":false"#.utf8)
    private static let okMember = Array(#""ok":true"#.utf8)
    private static let failureMember = Array(#""ok":false"#.utf8)
    /// Only an update event has a `new` member; the stamp is in its value (an `old` value may have one too).
    private static let newMember = Array(#""new":"#.utf8)

    /// Appends `{"op":OP[,"key":KEY][,"value":VALUE]}` and a line feed; `key` is plain
    /// ASCII, and goes in the member `keyMember` (`prefix` to observe a prefix).
    static func appendRequest(
        op: String, key: String?, value: [UInt8]?, keyMember: String = "key", to output: inout [UInt8]
    ) {
        output.append(contentsOf: #"{"op":""#.utf8)
        output.append(contentsOf: op.utf8)
        output.append(UInt8(ascii: "\""))
        if let key {
            output.append(contentsOf: #",""#.utf8)
            output.append(contentsOf: keyMember.utf8)
            output.append(contentsOf: #"":""#.utf8)
            output.append(contentsOf: key.utf8)
            output.append(UInt8(ascii: "\""))
        }
        if let value {
            output.append(contentsOf: #","value":"#.utf8)
            output.append(contentsOf: value)
        }
        output.append(contentsOf: "}\n".utf8)
    }

    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws -> WireDialect.Scanned? {
        guard let lineFeed = ByteScan.find(UInt8(ascii: "\n"), in: bytes, from: start, to: end) else {
            guard end - start <= longestLine else { throw BenchError("a line of over \(longestLine) bytes") }
            return nil
        }
        return WireDialect.Scanned(frame: classify(bytes, from: start, to: lineFeed), end: lineFeed + 1)
    }

    /// Replies start with `ok` as observatoryd writes them; other member orders take the slow path.
    static func classify(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> WireDialect.Frame {
        if ByteScan.hasPrefix(okPrefix, in: bytes, at: start, end: end) { return .reply(ok: true) }
        if ByteScan.hasPrefix(failurePrefix, in: bytes, at: start, end: end) { return .reply(ok: false) }
        if let new = ByteScan.find(newMember, in: bytes, from: start, to: end) {
            guard let stamp = BenchPayload.timestamp(in: bytes, from: new, to: end) else { return .other }
            return .event(timestamp: stamp)
        }
        if ByteScan.find(okMember, in: bytes, from: start, to: end) != nil { return .reply(ok: true) }
        if ByteScan.find(failureMember, in: bytes, from: start, to: end) != nil { return .reply(ok: false) }
        return .other
    }
}
