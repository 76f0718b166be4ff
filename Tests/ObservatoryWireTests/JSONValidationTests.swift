import ObservatoryTestSupport
import Testing

@testable import ObservatoryWire

/// The validator (``EncodedJSON/init(validating:maxDepth:)``) must accept and
/// reject exactly what ``JSONValue/parse(_:maxDepth:)`` does, with the same error.
@Suite struct JSONValidationTests {
    /// The outcome of one way of reading bytes: success, or the exact error.
    private enum Outcome: Equatable, CustomStringConvertible {
        case accepted
        case rejected(JSONParseError)

        var description: String {
            switch self {
            case .accepted: return "accepted"
            case .rejected(let error): return "rejected: \(error)"
            }
        }
    }

    private func parsed(_ bytes: [UInt8], maxDepth: Int) -> Outcome {
        do {
            _ = try JSONValue.parse(bytes, maxDepth: maxDepth)
            return .accepted
        } catch {
            return .rejected(error)
        }
    }

    private func validated(_ bytes: [UInt8], maxDepth: Int) -> Outcome {
        do {
            _ = try EncodedJSON(validating: bytes, maxDepth: maxDepth)
            return .accepted
        } catch {
            return .rejected(error)
        }
    }

    /// Valid and invalid texts, one rule of the grammar each.
    static let cases: [String] = [
        "null", "true", "false", "0", "-0", "12", "-12", "1.5", "-0.0", "1e5", "1E+2", "1e-400", "2.0",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e308", "1.7976931348623157e308",
        "1e309", "-1e400", "1.8e308", "0e999999", "0.000e500", "[]", "{}", " [ 1 , 2 ] ", "{\"a\":[1,{\"b\":null}]}",
        #""plain""#, #""\" \\ \/ \b \f \n \r \t \u0041 \u00e9""#, #""\uD83D\uDE00""#, #""\uD83D""#, #""\uDE00""#,
        #""\uD83Dx""#, #""\uD83D\u0041""#, #""\x""#, #""\u12""#, #""\u12G4""#, "\"a\nb\"", "\"unterminated",
        "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{1:2}", "{\"a\":}", "01", "-", "-a", "1.", "1.e5", "1e", "1e+",
        ".5", "+1", "NaN", "Infinity", "tru", "nul", "falsey", "[", "{", "{\"a\"", "{\"a\":1", "[1", "", "   ",
        "1 2", "{}{}", "[] x", "\u{FEFF}1", "\"é\"", "\"\u{1F600}\"",
        String(repeating: "9", count: 308), String(repeating: "9", count: 309),
        "0." + String(repeating: "1", count: 5000),
        "1" + String(repeating: "0", count: 400) + ".5", nestedArrays(depth: 64), nestedArrays(depth: 65),
        String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65),
    ]

    @Test(arguments: cases)
    func validatingAcceptsAndRejectsWhatParsingDoes(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(validated(bytes, maxDepth: 64) == parsed(bytes, maxDepth: 64))
    }

    @Test(
        arguments: [
            [0xFF], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xC3, 0x5C, 0x6E, 0x22], [0x22, 0x5C, 0x78, 0xFF, 0x22], [0x5B, 0xC3, 0xA9, 0x5D],
            [0x22, 0x5C, 0x75, 0x30, 0x30, 0x65, 0x39, 0xA9, 0x22],
        ] as [[UInt8]])
    func validatingRejectsInvalidUTF8AsParsingDoes(_ bytes: [UInt8]) {
        #expect(validated(bytes, maxDepth: 64) == parsed(bytes, maxDepth: 64))
    }

    @Test func theDepthLimitIsTheParsers() {
        for maxDepth in 0...4 {
            for depth in 0...5 {
                let bytes = Array(nestedArrays(depth: depth).utf8)
                #expect(validated(bytes, maxDepth: maxDepth) == parsed(bytes, maxDepth: maxDepth))
            }
        }
    }

    @Test func hostileNestingIsRejectedWithoutExhaustingTheStack() {
        let bytes = Array(nestedArrays(depth: 100_000).utf8)
        #expect(validated(bytes, maxDepth: 64) == parsed(bytes, maxDepth: 64))
    }

    @Test func theValidatedBytesAreTheValueWithoutTheWhitespaceAroundIt() throws {
        let value = try EncodedJSON(validating: Array(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ".utf8))
        #expect(text(value.bytes) == "{ \"a\" : [ 1 , 2 ] }")
        #expect(try EncodedJSON(validating: Array("7".utf8)).bytes == Array("7".utf8))
    }

    @Test func randomTextsAndTheirMutationsAreJudgedAlike() {
        var generator = SeededGenerator(seed: 0x0B5E_7A70_2026)
        var accepted = 0
        for _ in 0..<4000 {
            var bytes = Array(RandomJSON.text(using: &generator).utf8)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                RandomJSON.mutate(&bytes, using: &generator)
            }
            let maxDepth = Int.random(in: 1...8, using: &generator)
            let expected = parsed(bytes, maxDepth: maxDepth)
            if expected == .accepted { accepted += 1 }
            #expect(validated(bytes, maxDepth: maxDepth) == expected, "\(text(bytes))")
        }
        // Both sides of the grammar are exercised, not only one.
        #expect(accepted > 500 && accepted < 3500)
    }
}
