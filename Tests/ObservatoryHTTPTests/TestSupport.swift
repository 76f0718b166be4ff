@testable import ObservatoryHTTP

/// The bytes of `text`.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// The bytes as text.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// The error `body` throws, or nil if it does not throw.
func thrownError<Result>(_ body: () throws(HTTPError) -> Result) -> HTTPError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// A response decoded whole: its heads, its body bytes joined, and how many ends came.
struct DecodedResponses: Equatable {
    var heads: [HTTPResponseHead] = []
    var bodies: [String] = []
    var bodyPieceCount = 0
}

/// Feeds `input` to `decoder` in pieces of `pieceSize` bytes (all at once when nil),
/// draining it after each, then finishes it when `finish` is set.
func decodeResponses(
    _ input: [UInt8], pieceSize: Int? = nil, finish: Bool = false,
    decoder: HTTPResponseDecoder = HTTPResponseDecoder()
) throws(HTTPError) -> DecodedResponses {
    var decoder = decoder
    var result = DecodedResponses()
    var currentBody: [UInt8] = []
    func drain() throws(HTTPError) {
        while let part = try decoder.next() {
            switch part {
            case .head(let head): result.heads.append(head)
            case .body(let piece):
                result.bodyPieceCount += 1
                currentBody += piece
            case .end:
                result.bodies.append(text(currentBody))
                currentBody = []
            }
        }
    }
    let step = pieceSize ?? max(1, input.count)
    var start = 0
    while start < input.count {
        decoder.append(input[start..<min(input.count, start + step)])
        try drain()
        start += step
    }
    if finish {
        decoder.finish()
        try drain()
    }
    return result
}

/// RFC 6455 §5.7's masking key.
let sampleMaskingKey: UInt32 = 0x37FA_213D

/// A frame as a client sends it: masked with `key`.
func clientFrame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, key: UInt32 = sampleMaskingKey
) -> [UInt8] {
    WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, maskingKey: key, payload: payload))
}

/// The error `body` throws, or nil if it does not throw.
func thrownWebSocketError<Result>(_ body: () throws(WebSocketError) -> Result) -> WebSocketError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
