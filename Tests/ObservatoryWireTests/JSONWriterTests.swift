import ObservatoryTestSupport
import Testing

@testable import ObservatoryWire

@Suite struct JSONWriterTests {
    @Test func valuesEncodeCompactlyInTheirOrder() {
        let value: JSONValue = ["z": 1, "a": [true, false, nil], "m": ["x": "y"], "e": [], "o": [:]]
        #expect(text(value.encoded()) == #"{"z":1,"a":[true,false,null],"m":{"x":"y"},"e":[],"o":{}}"#)
    }

    @Test func encodeIntoAppendsToExistingBytes() {
        var buffer = Array("x".utf8)
        JSONValue.integer(5).encode(into: &buffer)
        #expect(text(buffer) == "x5")
    }

    @Test func integersAreWrittenExactly() {
        #expect(text(JSONValue.integer(.max).encoded()) == "9223372036854775807")
        #expect(text(JSONValue.integer(.min).encoded()) == "-9223372036854775808")
        #expect(text(JSONValue.integer(0).encoded()) == "0")
        #expect(text(JSONValue.integer(-7).encoded()) == "-7")
        #expect(text(JSONValue.integer(9_007_199_254_740_993).encoded()) == "9007199254740993")
    }

    @Test func doublesAreWrittenInShortestRoundTripForm() {
        #expect(text(JSONValue.double(0.1).encoded()) == "0.1")
        #expect(text(JSONValue.double(1e-300).encoded()) == "1e-300")
        #expect(text(JSONValue.double(.leastNonzeroMagnitude).encoded()) == "5e-324")
        #expect(text(JSONValue.double(.greatestFiniteMagnitude).encoded()) == "1.7976931348623157e+308")
        #expect(text(JSONValue.double(-2.5).encoded()) == "-2.5")
    }

    @Test func wholeDoublesAreWrittenAsIntegersUpTo2To53() {
        #expect(text(JSONValue.double(2.0).encoded()) == "2")
        #expect(text(JSONValue.double(-3.0).encoded()) == "-3")
        #expect(text(JSONValue.double(9_007_199_254_740_992).encoded()) == "9007199254740992")
        #expect(text(JSONValue.double(1e22).encoded()) == "1e+22")
    }

    @Test func negativeZeroKeepsItsSign() {
        #expect(text(JSONValue.double(-0.0).encoded()) == "-0.0")
        #expect(text(JSONValue.double(0.0).encoded()) == "0")
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(text(JSONValue.double(.nan).encoded()) == "null")
        #expect(text(JSONValue.double(.infinity).encoded()) == "null")
    }

    @Test func stringsEscapeQuotesBackslashesAndControlCharacters() {
        let value = JSONValue.string("a\"b\\c\n\r\t\u{08}\u{0C}\u{0}\u{1F}/é😀\u{7F}")
        #expect(text(value.encoded()) == #""a\"b\\c\n\r\t\b\f\u0000\u001f/é😀"# + "\u{7F}\"")
    }

    @Test func keysAreEscapedLikeStrings() {
        let value: JSONValue = ["a\"b": 1]
        #expect(text(value.encoded()) == #"{"a\"b":1}"#)
    }

    @Test(arguments: [
        #"{"a":[1,2.5,"x",null,true,{"b":{}}]}"#,
        "9223372036854775807", "-9223372036854775808", "9007199254740993",
        "0.1", "1e-300", "5e-324", "1.7976931348623157e+308", "-0.0",
        #""😀 \u0000 \" \\ 世界""#, #"[[[[]]]]"#,
    ])
    func encodingReparsesToAnEqualValueAndTheSameText(_ source: String) throws {
        let value = try json(source)
        let encoded = value.encoded()
        let reparsed = try JSONValue.parse(encoded)
        #expect(reparsed == value)
        #expect(reparsed.encoded() == encoded)
    }

    @Test func doublesRoundTripBitForBit() throws {
        let doubles: [Double] = [
            0.1, 0.2, 1.0 / 3.0, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0,
            123_456_789.123_456_789, 9_007_199_254_740_994, 1e16, -1e-7, .pi,
        ]
        for double in doubles {
            let reparsed = try JSONValue.parse(JSONValue.double(double).encoded())
            #expect(reparsed.doubleValue?.bitPattern == double.bitPattern, "\(double)")
        }
    }

    @Test func escapedSurrogatePairsComeBackAsRawUTF8() throws {
        let value = try json(#""\uD83D\uDE00""#)
        #expect(text(value.encoded()) == "\"😀\"")
    }

    @Test func descriptionIsTheCompactText() {
        let value: JSONValue = ["a": [1, "b"]]
        #expect(value.description == #"{"a":[1,"b"]}"#)
    }

    /// The word-at-a-time scan must find every byte that needs escaping at every
    /// position of its eight-byte block, next to UTF-8 and plain ASCII, in strings
    /// of every length around the block size.
    @Test func everyEscapeIsFoundWhereverItSitsInALongString() throws {
        var generator = SeededGenerator(seed: 18)
        let pieces = ["a", "Z", " ", "~", "é", "€", "😀", "\"", "\\", "\n", "\u{01}", "\u{1F}", "\t", "\u{7F}"]
        for length in 0..<40 {
            for _ in 0..<25 {
                let string = (0..<length).map { _ in pieces.randomElement(using: &generator) ?? "a" }.joined()
                var written: [UInt8] = []
                JSONWriter.write(string, into: &written)
                #expect(written == Self.reference(string), "\(string.debugDescription)")
                #expect(try JSONValue.parse(written) == .string(string))
            }
        }
    }

    /// Escapes byte by byte, as the writer did before it scanned words.
    private static func reference(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for byte in string.utf8 {
            switch byte {
            case 0x22, 0x5C: bytes += [0x5C, byte]
            case 0x0A: bytes += Array("\\n".utf8)
            case 0x0D: bytes += Array("\\r".utf8)
            case 0x09: bytes += Array("\\t".utf8)
            case 0x08: bytes += Array("\\b".utf8)
            case 0x0C: bytes += Array("\\f".utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        return bytes + [0x22]
    }
}
