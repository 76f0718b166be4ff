import Testing

@testable import ObservatoryWire

@Suite struct JSONParserTests {
    @Test func scalarsParseToTheirCases() throws {
        #expect(try json("null") == .null)
        #expect(try json("true") == .bool(true))
        #expect(try json("false") == .bool(false))
        #expect(try json("\"hi\"") == .string("hi"))
        #expect(try json("-12") == .integer(-12))
        #expect(try json("0") == .integer(0))
    }

    @Test func whitespaceAroundAndInsideIsAllowed() throws {
        let value = try json(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ")
        #expect(value == ["a": [1, 2]])
    }

    @Test func integersAtTheInt64EdgesStayExact() throws {
        #expect(try json("9223372036854775807") == .integer(.max))
        #expect(try json("-9223372036854775808") == .integer(.min))
        guard case .integer(let value) = try json("9007199254740993") else {
            Issue.record("2^53+1 must stay an integer")
            return
        }
        #expect(value == 9_007_199_254_740_993)
    }

    @Test func integersOfEighteenAndNineteenDigitsStayExact() throws {
        #expect(try json("999999999999999999") == .integer(999_999_999_999_999_999))
        #expect(try json("-999999999999999999") == .integer(-999_999_999_999_999_999))
        #expect(try json("1000000000000000000") == .integer(1_000_000_000_000_000_000))
        #expect(try json("-1000000000000000000") == .integer(-1_000_000_000_000_000_000))
    }

    @Test func integersBeyondInt64BecomeDoubles() throws {
        guard case .double(let value) = try json("9223372036854775808") else {
            Issue.record("2^63 must become a double")
            return
        }
        #expect(value == 9_223_372_036_854_775_808.0)
        guard case .double(let negative) = try json("-9223372036854775809") else {
            Issue.record("-2^63-1 must become a double")
            return
        }
        #expect(negative == -9_223_372_036_854_775_808.0)
    }

    @Test func numbersWithFractionOrExponentAreDoubles() throws {
        #expect(try json("0.1").doubleValue == 0.1)
        #expect(try json("1e-300").doubleValue == 1e-300)
        #expect(try json("5e-324").doubleValue == .leastNonzeroMagnitude)
        #expect(try json("1.7976931348623157e308").doubleValue == .greatestFiniteMagnitude)
        #expect(try json("2.0") == .double(2.0))
        if case .double = try json("2.0") {} else { Issue.record("2.0 must parse as a double") }
        #expect(try json("1E+2").doubleValue == 100)
        guard case .double(let negativeZero) = try json("-0.0") else {
            Issue.record("-0.0 must parse as a double")
            return
        }
        #expect(negativeZero.sign == .minus)
    }

    @Test func numbersBeyondDoubleRangeAreErrorsNamingTheRange() {
        let error = parseError("1e400")
        #expect(error?.kind == .numberOutOfRange)
        #expect(error?.description.contains("1e400") == true)
        #expect(parseError("-1e400")?.kind == .numberOutOfRange)
    }

    @Test func hugeIntegerStringsBecomeDoublesOrRangeErrors() throws {
        let digits = "1" + String(repeating: "0", count: 300)
        #expect(try json(digits).doubleValue == 1e300)
        let tooMany = "1" + String(repeating: "0", count: 400)
        let error = parseError(tooMany)
        #expect(error?.kind == .numberOutOfRange)
        #expect(error?.description.contains("401 characters") == true)
    }

    @Test func tinyNumbersUnderflowToZero() throws {
        #expect(try json("1e-400").doubleValue == 0)
    }

    @Test(arguments: ["01", "-01", "00", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "-a", "1.e5"])
    func malformedNumbersAreRejected(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func leadingZerosAreNamedInTheError() {
        let error = parseError("[012]")
        #expect(error?.kind == .invalidNumber)
        #expect(error?.offset == 1)
        #expect(error?.description.contains("leading zeros") == true)
    }

    @Test(arguments: ["NaN", "Infinity", "-Infinity", "nul", "tru", "True", "undefined", "'a'"])
    func nonJSONLiteralsAreRejected(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test(arguments: [
        "[1,]", "{\"a\":1,}", "[,1]", "{,}", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{1:2}", "[", "{", "{\"a\":1",
    ])
    func structuralErrorsAreRejected(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test(arguments: ["// c\n1", "/* c */ 1", "1 // c", "# c\n1"])
    func commentsAreRejected(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func trailingGarbageIsRejectedWithItsOffset() {
        let error = parseError("{\"a\":1} x")
        #expect(error?.kind == .trailingBytes)
        #expect(error?.offset == 8)
        #expect(parseError("1 2")?.kind == .trailingBytes)
        #expect(parseError("{}{}")?.kind == .trailingBytes)
    }

    @Test func emptyInputIsAnUnexpectedEnd() {
        #expect(parseError("")?.kind == .unexpectedEnd)
        #expect(parseError("   ")?.kind == .unexpectedEnd)
    }

    @Test func nestingAtTheLimitParses() throws {
        let value = try JSONValue.parse(Array(nestedArrays(depth: 64).utf8))
        var depth = 0
        var current = value
        while case .array(let elements) = current {
            depth += 1
            current = elements.first ?? .null
        }
        #expect(depth == 64)
    }

    @Test func nestingOverTheLimitIsRejected() {
        #expect(parseError(nestedArrays(depth: 65))?.kind == .nestingTooDeep)
        let objects = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(parseError(objects)?.kind == .nestingTooDeep)
    }

    @Test func theDepthLimitIsConfigurable() throws {
        #expect(parseError(nestedArrays(depth: 3), maxDepth: 2)?.kind == .nestingTooDeep)
        #expect(parseError(nestedArrays(depth: 2), maxDepth: 2) == nil)
        #expect(parseError(nestedArrays(depth: 100_000))?.kind == .nestingTooDeep)
    }

    @Test func stringEscapesDecode() throws {
        let value = try json(#""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC""#)
        #expect(value == .string("\" \\ / \u{08} \u{0C} \n \r \t A é €"))
    }

    @Test func escapedSurrogatePairsJoinIntoOneScalar() throws {
        #expect(try json(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try json(#""a\ud834\udd1eb""#) == .string("a𝄞b"))
    }

    @Test func rawUnicodeIncludingEmojiIsKept() throws {
        let text = "héllo 世界 😀 👩‍👩‍👧"
        #expect(try json("\"\(text)\"") == .string(text))
    }

    @Test(arguments: [
        #""\uD83D""#, #""\uD83Dx""#, #""\uD83D\u0041""#, #""\uDE00""#, #""a\uDC00b""#, #""\uD83D\uD83D""#,
    ])
    func loneSurrogatesAreRejected(_ text: String) {
        #expect(parseError(text)?.kind == .invalidEscape)
    }

    @Test(arguments: [#""\x41""#, #""\u12""#, #""\u12G4""#, #""\'""#, #""\"#])
    func badEscapesAreRejected(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func unescapedControlCharactersInStringsAreRejected() {
        #expect(parseError("\"a\nb\"")?.kind == .controlCharacterInString)
        #expect(parseError("\"a\u{0}b\"")?.kind == .controlCharacterInString)
        #expect(parseError("\"a\\n\tb\"")?.kind == .controlCharacterInString)
    }

    /// Strings are scanned eight bytes at a time; a byte that needs attention
    /// must be caught at every position of a word and across words.
    @Test(arguments: 0..<20)
    func stringBytesThatNeedAttentionAreFoundAtEveryOffset(_ offset: Int) throws {
        let plain = String(repeating: "a", count: offset)
        #expect(try json("\"\(plain)\"") == .string(plain))
        #expect(try json("[\"\(plain)\",\"\(plain)b\"]") == [.string(plain), .string(plain + "b")])
        #expect(try json("\"\(plain)\\nz\"") == .string(plain + "\nz"))
        #expect(try json("\"\(plain)é\(plain)\"") == .string(plain + "é" + plain))
        #expect(try json("\"\(plain)\u{7F} ~\(plain)\"") == .string(plain + "\u{7F} ~" + plain))
        let control = parseError(Array("\"\(plain)".utf8) + [0x1F] + Array("bbbbbbbbb\"".utf8))
        #expect(control?.kind == .controlCharacterInString)
        #expect(control?.offset == offset + 1)
        #expect(parseError(Array("\"\(plain)".utf8) + [0xFF] + Array("bbbbbbbbb\"".utf8))?.kind == .invalidUTF8)
        #expect(parseError("\"\(plain)")?.kind == .unexpectedEnd)
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22], // never valid
            [0x22, 0xC3, 0x22], // truncated two-byte sequence
            [0x22, 0xC0, 0xAF, 0x22], // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22], // encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
            [0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22], // truncated after an escape
        ] as [[UInt8]])
    func invalidUTF8InStringsIsRejected(_ bytes: [UInt8]) {
        #expect(parseError(bytes)?.kind == .invalidUTF8)
    }

    @Test func invalidBytesOutsideStringsAreRejected() {
        #expect(parseError([0xFF])?.kind == .unexpectedByte)
        #expect(parseError([0x5B, 0xC3, 0xA9, 0x5D])?.kind == .unexpectedByte)
    }

    @Test func duplicateKeysKeepTheLastValueAtTheFirstPosition() throws {
        let value = try json(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
        #expect(text(value.encoded()) == #"{"a":3,"b":2}"#)
    }

    @Test func duplicateKeysInLargeObjectsKeepTheLastValue() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" } + ["\"k3\":\"last\""]
        let value = try json("{" + members.joined(separator: ",") + "}")
        #expect(value.objectValue?.count == 40)
        #expect(value["k3"] == "last")
        #expect(value.objectValue?.keys.first == "k0")
    }

    @Test func nonContiguousCollectionsParseLikeArrays() throws {
        let bytes = Array("[1,\"a\"]".utf8)
        let parsesLazyBytes = try JSONValue.parse(bytes.lazy.map { $0 }) == [1, "a"]
        #expect(parsesLazyBytes)
        #expect(try JSONValue.parse(bytes[...]) == [1, "a"])
    }

    @Test func textParsesLikeItsUTF8Bytes() throws {
        #expect(try JSONValue.parse("{\"é\":[1]}") == ["é": [1]])
    }

    @Test func errorsDescribeTheOffendingByte() {
        let error = parseError("[1;2]")
        #expect(error?.kind == .unexpectedByte)
        #expect(error?.offset == 2)
        #expect(error?.description == #"unexpected byte at byte 2: expected "," or "]" in an array, found ";""#)
    }

    @Test func specialBytesAreFoundAtEveryOffsetOfAWordScan() throws {
        for offset in 0..<20 {
            let plain = String(repeating: "p", count: offset)
            let tail = String(repeating: "t", count: 9)
            #expect(try json("[\"\(plain)\",1]") == [.string(plain), 1])
            #expect(try json("\"\(plain)\\n\(tail)\"") == .string(plain + "\n" + tail))
            #expect(try json("\"\(plain)é\(tail)\"") == .string(plain + "é" + tail))
            let control = parseError(Array("\"\(plain)".utf8) + [0x1F] + Array("\(tail)\"".utf8))
            #expect(control?.kind == .controlCharacterInString)
            #expect(control?.offset == offset + 1)
            #expect(parseError(Array("\"\(plain)".utf8) + [0xFF] + Array("\(tail)\"".utf8))?.kind == .invalidUTF8)
        }
    }
}
