import ObservatoryTestSupport
import Testing

@testable import ObservatoryWire

@Suite struct EncodedJSONTests {
    private func encoded(_ text: String) throws -> EncodedJSON {
        try EncodedJSON(validating: Array(text.utf8))
    }

    /// Pairs of texts that are the same JSON value but not the same bytes.
    static let equalPairs: [(String, String)] = [
        ("1", "1.0"), ("1", "1e0"), ("100", "1E+2"), ("0", "-0"), ("0", "-0.0"), ("0.5", "5e-1"),
        ("9007199254740993", "9007199254740993"), (#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#),
        (#"{"a":1,"a":2}"#, #"{"a":2}"#), (#""é""#, #""\u00e9""#), (#""/""#, #""\/""#), (#""A""#, #""\u0041""#),
        (#""😀""#, #""\uD83D\uDE00""#), ("[1, 2]", "[1,2]"), (#"{ "a" : [ 1.0 ] }"#, #"{"a":[1]}"#),
        (#"{"x":{"q":1,"p":[true,null]},"y":"z"}"#, #"{"y":"z","x":{"p":[true,null],"q":1.0}}"#),
    ]

    @Test(arguments: equalPairs)
    func theSameValueSpelledDifferentlyIsEqual(_ left: String, _ right: String) throws {
        #expect(try encoded(left) == encoded(right))
        #expect(try encoded(right) == encoded(left))
    }

    /// Pairs of texts that are different JSON values.
    static let unequalPairs: [(String, String)] = [
        ("1", "2"), ("1", "1.5"), ("1", "\"1\""), ("true", "false"), ("null", "false"), ("null", "0"),
        ("[]", "{}"), ("[1,2]", "[2,1]"), (#"{"a":1}"#, #"{"a":1,"b":2}"#), (#"{"a":1}"#, #"{"A":1}"#),
        (#""a""#, #""A""#), (#""é""#, #""e""#), ("9223372036854775807", "9223372036854775806"),
        ("[[1]]", "[[1,1]]"), (#"{"a":{"b":1}}"#, #"{"a":{"b":2}}"#),
    ]

    @Test(arguments: unequalPairs)
    func differentValuesAreUnequal(_ left: String, _ right: String) throws {
        #expect(try encoded(left) != encoded(right))
        #expect(try encoded(right) != encoded(left))
    }

    @Test func equalityAgreesWithTheTreesOnRandomValues() throws {
        var generator = SeededGenerator(seed: 42)
        var texts: [String] = []
        while texts.count < 300 {
            let text = RandomJSON.text(using: &generator)
            if (try? JSONValue.parse(text)) != nil { texts.append(text) }
        }
        for (left, right) in zip(texts, texts.shuffled(using: &generator) + texts) {
            #expect((try encoded(left) == encoded(right)) == (try json(left) == json(right)), "\(left) \(right)")
        }
        for text in texts {
            let tree = try json(text)
            #expect(try encoded(text) == EncodedJSON(tree))
        }
    }

    @Test func theBytesAreKeptAsSent() throws {
        let value = try encoded(#"  {"b" : 1.0, "a":"\u00e9"}  "#)
        #expect(text(value.bytes) == #"{"b" : 1.0, "a":"\u00e9"}"#)
        #expect(value.count == value.bytes.count)
        #expect(value.description == #"{"b" : 1.0, "a":"\u00e9"}"#)
    }

    @Test func decodingGivesTheTreeThatParsingGives() throws {
        let text = #"{"r":255,"g":1.5,"name":"orange","tags":["a",null,true]}"#
        #expect(try encoded(text).decoded() == json(text))
    }

    @Test func valuesFromTreesAreTheirCompactEncoding() throws {
        let tree = try json(#"{ "b" : 2.0, "a" : [ "\u00e9" ] }"#)
        let value = EncodedJSON(tree)
        #expect(text(value.bytes) == #"{"b":2,"a":["é"]}"#)
        #expect(value.isCanonical)
        #expect(value.decoded() == tree)
    }

    @Test(arguments: [#"{"a":1}"#, "[1,2]", #""é""#, "0.1", "-0.0", "null"])
    func canonicalBytesAreRecognized(_ text: String) throws {
        #expect(try encoded(text).isCanonical)
    }

    @Test(arguments: ["1.0", "1e2", "[1, 2]", #""\u00e9""#, #""\/""#, #"{"a":1,"a":2}"#])
    func bytesTheEncoderWouldWriteOtherwiseAreNotCanonical(_ text: String) throws {
        #expect(try !encoded(text).isCanonical)
    }

    @Test func encodingAppendsTheBytesAsTheyAre() throws {
        var buffer = Array("[".utf8)
        try encoded("1.0").encode(into: &buffer)
        #expect(text(buffer) == "[1.0")
    }

    @Test func valuesValidatedWithADeepLimitStillDecode() throws {
        let deep = nestedArrays(depth: 200)
        let value = try EncodedJSON(validating: Array(deep.utf8), maxDepth: 200)
        #expect(value.decoded().encoded() == Array(deep.utf8))
    }

    @Test func invalidBytesAreRejectedWithTheParsersError() throws {
        let expected = try #require(parseError("[1,]"))
        #expect(throws: expected) { try encoded("[1,]") }
    }
}
