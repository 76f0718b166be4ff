// libFuzzer target for the JSON parser (Sources/ObservatoryWire/JSON), built by
// Fuzz/run.sh together with the Wire module's sources. Any input must either be
// rejected with a JSONParseError or parse to a value that encodes to JSON which
// parses back to the same value, and encodes to the same bytes again.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    let encoded = value.encoded()
    guard let again = try? JSONValue.parse(encoded) else {
        fatalError("the encoding of a parsed value does not parse: \(String(decoding: encoded, as: UTF8.self))")
    }
    guard again == value else {
        fatalError("a value changed on its way through the encoder: \(String(decoding: encoded, as: UTF8.self))")
    }
    guard again.encoded() == encoded else {
        fatalError("encoding is not stable: \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}
