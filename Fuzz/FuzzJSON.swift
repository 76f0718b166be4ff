// libFuzzer target for the JSON parser and validator (Sources/ObservatoryJSON),
// built by Fuzz/run.sh together with the Wire module's sources. For any input:
// - the validator (EncodedJSON(validating:)) accepts it exactly when the parser
//   does, and rejects it with the very same error (kind, offset, detail);
// - a parsed value encodes to JSON which parses back to the same value, and
//   encodes to the same bytes again;
// - the validated bytes decode to the parsed value, equal their own canonical
//   encoding, and compare with the previous valid input as the trees compare.

/// The last input that was valid, to compare the next one against. libFuzzer
/// calls the target from one thread.
nonisolated(unsafe) private var previous: (bytes: EncodedJSON, tree: JSONValue)?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let maxDepth = count % 2 == 0 ? JSONValue.defaultMaxDepth : 3
    let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, maxDepth: maxDepth) }
    let validated = Result { () throws(JSONParseError) in try EncodedJSON(validating: bytes, maxDepth: maxDepth) }
    switch (parsed, validated) {
    case (.failure(let parseError), .failure(let validationError)):
        guard parseError == validationError else {
            fatalError("the parser threw \(parseError), the validator \(validationError)")
        }
        return 0
    case (.success, .failure(let error)):
        fatalError("the parser accepted what the validator rejected with \(error)")
    case (.failure(let error), .success):
        fatalError("the validator accepted what the parser rejected with \(error)")
    case (.success(let value), .success(let encodedJSON)):
        checkRoundTrip(of: value)
        checkEncodedJSON(encodedJSON, against: value)
        return 0
    }
}

private func checkRoundTrip(of value: JSONValue) {
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
}

private func checkEncodedJSON(_ encodedJSON: EncodedJSON, against value: JSONValue) {
    guard encodedJSON.decoded() == value else {
        fatalError("validated bytes decode to another value: \(encodedJSON)")
    }
    let canonical = EncodedJSON(value)
    guard encodedJSON == canonical, canonical == encodedJSON else {
        fatalError("validated bytes differ from their own encoding: \(encodedJSON) and \(canonical)")
    }
    guard encodedJSON.isCanonical == (canonical.bytes == encodedJSON.bytes) else {
        fatalError("isCanonical is wrong for \(encodedJSON)")
    }
    if let previous {
        let bytesEqual = previous.bytes == encodedJSON
        guard bytesEqual == (previous.tree == value), bytesEqual == (encodedJSON == previous.bytes) else {
            fatalError("EncodedJSON and the trees compare \(previous.bytes) and \(encodedJSON) differently")
        }
    }
    previous = (encodedJSON, value)
}
