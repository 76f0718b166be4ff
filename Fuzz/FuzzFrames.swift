// libFuzzer target for everything the server and the client read from a peer:
// the frame splitter, the request decoder and the decoder of server messages
// (Sources/ObservatoryWire), built by Fuzz/run.sh with the Wire module's
// sources. The first input byte chooses how the rest is cut into reads, so the
// splitter sees the same bytes in many chunkings. Any input must end in frames,
// replies or typed errors: never a crash, a hang or a frame over the limit.
// A request decoded with its values as bytes (Request<EncodedJSON>) must be the
// one decoded with them as trees (Request<JSONValue>), value for value.

private let maxFrameBytes = 4_096

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = input.first else { return 0 }
    let chunk = Int(first % 64) + 1
    let body = UnsafeRawBufferPointer(rebasing: input.dropFirst())
    var splitter = FrameSplitter(maxFrameBytes: maxFrameBytes)
    var offset = 0
    var frames = 0
    while offset < body.count {
        let end = min(body.count, offset + chunk)
        splitter.append(UnsafeRawBufferPointer(rebasing: body[offset..<end]))
        offset = end
        while true {
            let frame: [UInt8]?
            do {
                frame = try splitter.next()
            } catch {
                guard error.code == .frameTooLarge else { fatalError("the splitter threw \(error)") }
                return 0
            }
            guard let frame else { break }
            guard frame.count <= maxFrameBytes else { fatalError("a frame of \(frame.count) bytes passed the limit") }
            frames += 1
            guard frames <= body.count + 1 else { fatalError("more frames than input bytes") }
            decode(frame)
        }
    }
    return 0
}

/// Decodes a frame as the server does (a request, both ways) and as the client
/// does (a reply or an event); a rejection must come with a reply to send.
private func decode(_ frame: [UInt8]) {
    // Small enough that frames of the fuzzer's sizes are measured, not waved through.
    let limits = RequestLimits(maxValueBytes: 1_024)
    let decoded = Request<JSONValue>.decode(frame: frame, limits: limits)
    let decodedWithBytes = Request<EncodedJSON>.decode(frame: frame, limits: limits)
    guard decodedWithBytes.map(\.decoded) == decoded else {
        fatalError("the two value representations decode \(String(decoding: frame, as: UTF8.self)) differently")
    }
    if case .success(let request) = decodedWithBytes, case .set(_, let value, _, _, _, _) = request.operation {
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        guard (try? EncodedJSON(validating: value.bytes)) != nil, let first = value.bytes.first,
            let last = value.bytes.last, !whitespace.contains(first), !whitespace.contains(last)
        else {
            fatalError("a set's value bytes are not one value without whitespace around it: \(value)")
        }
    }
    switch decoded {
    case .success(let request):
        _ = Reply.success(id: request.id, .unobserve).encodedLine()
    case .failure(let rejection):
        let line = rejection.reply.encodedLine()
        guard line.last == UInt8(ascii: "\n"), (try? JSONValue.parse(line.dropLast())) != nil else {
            fatalError("a rejection's reply is not one JSON line")
        }
    }
    _ = try? ServerMessage.decode(frame: frame)
}
