/// Redis's RESP2, as far as the benchmark needs it: commands out as arrays of bulk
/// strings; in, replies framed exactly (bulk lengths are followed, so a payload
/// could hold any byte) and pub/sub messages told apart by their first element.
enum RESPFrames {
    private static let message = Array("message".utf8)
    private static let subscribe = Array("subscribe".utf8)
    /// Bounds what a length prefix may claim, so a corrupt one fails instead of waiting forever.
    private static let longestBulk = 64 << 20

    /// Appends the command `name [key] [value]` as an array of bulk strings.
    static func appendCommand(_ name: String, key: String?, value: [UInt8]?, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "*"))
        output.appendDecimal(1 + (key == nil ? 0 : 1) + (value == nil ? 0 : 1))
        output.append(contentsOf: "\r\n".utf8)
        appendBulk(name.utf8, to: &output)
        if let key { appendBulk(key.utf8, to: &output) }
        if let value { appendBulk(value, to: &output) }
    }

    private static func appendBulk<Bytes: Collection<UInt8>>(_ bytes: Bytes, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "$"))
        output.appendDecimal(UInt64(bytes.count))
        output.append(contentsOf: "\r\n".utf8)
        output.append(contentsOf: bytes)
        output.append(contentsOf: "\r\n".utf8)
    }

    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws -> WireDialect.Scanned? {
        guard start < end else { return nil }
        guard bytes[start] == UInt8(ascii: "*") else {
            guard let item = try item(bytes, at: start, end: end) else { return nil }
            return WireDialect.Scanned(frame: .reply(ok: bytes[start] != UInt8(ascii: "-")), end: item.next)
        }
        return try array(bytes, at: start, end: end)
    }

    /// An array: a pub/sub message or subscribe confirmation (other arrays are not expected).
    private static func array(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int) throws -> WireDialect.Scanned? {
        guard let header = try line(bytes, at: start, end: end) else { return nil }
        guard let count = ByteScan.decimal(in: bytes, from: start + 1, to: header.contentEnd), count <= 8 else {
            throw BenchError("unexpected RESP array from the server")
        }
        // The kind (first element) and the payload (third) are all that matter; kept
        // in locals, as an array per message would cost an allocation per delivery.
        var kind: Item?
        var payload: Item?
        var position = header.next
        for index in 0..<count {
            guard let item = try item(bytes, at: position, end: end) else { return nil }
            if index == 0 { kind = item } else if index == 2 { payload = item }
            position = item.next
        }
        let frame = classify(kind: kind, payload: count == 3 ? payload : nil, in: bytes)
        return WireDialect.Scanned(frame: frame, end: position)
    }

    private static func classify(kind: Item?, payload: Item?, in bytes: UnsafeRawBufferPointer) -> WireDialect.Frame {
        guard let kind else { return .other }
        if let payload, kind.is(message, in: bytes) {
            guard let stamp = BenchPayload.timestamp(in: bytes, from: payload.contentStart, to: payload.contentEnd)
            else { return .other }
            return .event(timestamp: stamp)
        }
        return kind.is(subscribe, in: bytes) ? .reply(ok: true) : .other
    }

    /// One non-array element: where its content lies and where the next element starts.
    private struct Item {
        let contentStart: Int
        let contentEnd: Int
        let next: Int

        func `is`(_ word: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
            contentEnd - contentStart == word.count
                && ByteScan.hasPrefix(word, in: bytes, at: contentStart, end: contentEnd)
        }
    }

    private static func item(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int) throws -> Item? {
        guard let header = try line(bytes, at: start, end: end) else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: ":"):
            return header
        case UInt8(ascii: "$"):
            guard bytes[start + 1] != UInt8(ascii: "-") else { return header } // a null bulk string
            guard let length = ByteScan.decimal(in: bytes, from: start + 1, to: header.contentEnd),
                length <= longestBulk
            else { throw BenchError("bad RESP bulk length from the server") }
            let contentEnd = header.next + Int(length)
            guard contentEnd + 2 <= end else { return nil }
            return Item(contentStart: header.next, contentEnd: contentEnd, next: contentEnd + 2)
        default:
            throw BenchError("unexpected RESP type byte \(bytes[start]) from the server")
        }
    }

    /// The line at `start`: content after the type byte up to CR LF.
    private static func line(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int) throws -> Item? {
        guard let lineFeed = ByteScan.find(UInt8(ascii: "\n"), in: bytes, from: start, to: end) else {
            guard end - start <= JSONLineFrames.longestLine else { throw BenchError("a RESP line too long") }
            return nil
        }
        guard lineFeed > start + 1, bytes[lineFeed - 1] == UInt8(ascii: "\r") else {
            throw BenchError("a RESP line without CR LF from the server")
        }
        return Item(contentStart: start + 1, contentEnd: lineFeed - 1, next: lineFeed + 1)
    }
}
