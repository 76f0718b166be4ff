/// Writes a body in the chunked transfer coding, for responses whose length is not
/// known when their head is sent (Server-Sent Events, long listings).
///
/// ```swift
/// var head = HTTPResponseHead(status: .ok, headers: ["Content-Type": "text/event-stream"])
/// head.headers.add(name: "Transfer-Encoding", value: "chunked")
/// send(head.encoded())
/// send(ChunkedBodyEncoder.chunk(event.encoded()))
/// send(ChunkedBodyEncoder.lastChunk)
/// ```
public enum ChunkedBodyEncoder {
    /// The zero-length chunk and the empty trailer section that end a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// `bytes` as one chunk: hexadecimal size, CR LF, the bytes, CR LF. Empty input
    /// gives no bytes, because an empty chunk would end the body.
    public static func chunk(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        appendChunk(bytes, to: &output)
        return output
    }

    /// Appends `bytes` as one chunk to `output` (nothing for empty input), so a
    /// caller can build several chunks in one send buffer.
    public static func appendChunk(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.reserveCapacity(output.count + bytes.count + 20)
        HeadWriter.appendLiteral(String(bytes.count, radix: 16), to: &output)
        HeadWriter.appendLineEnd(to: &output)
        output.append(contentsOf: bytes)
        HeadWriter.appendLineEnd(to: &output)
    }
}
