import ObservatoryTestSupport
import Testing

@testable import ObservatoryJSON
@testable import ObservatoryWire

@Suite struct JSONQuickCheckTests {
    private func check(_ text: String, maxDepth: Int = 64) -> (range: Range<Int>, namesAreUnique: Bool)? {
        Array(text.utf8).withUnsafeBufferPointer { JSONQuickCheck.text($0, maxDepth: maxDepth) }
    }

    private func parserRange(_ text: String, maxDepth: Int = 64) -> Range<Int>? {
        Array(text.utf8).withUnsafeBufferPointer { try? JSONParser.validate($0, maxDepth: maxDepth) }
    }

    @Test func usualValuesAreDecidedWhereTheyStandInTheText() {
        let payload = #"{"seq":17,"ts":1764336000123456789,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#
        #expect(check(payload)?.range == 0..<payload.utf8.count)
        #expect(check(#" [1, -2.5, "a\"b\\c\/\n\u00e9", true, false, null, {}, []] "#)?.range == 1..<58)
        #expect(check("0")?.range == 0..<1)
        #expect(check(#"{ "a" : { "b" : [ 0.125 ] } }"#) != nil)
    }

    @Test(arguments: [
        #""é""#, #""\uD83D\uDE00""#, "1e5", "1E-2", "01", "-", "1.", ".5", "[1,]", "{\"a\":1,}", "[1 2]",
        "{\"a\" 1}", "{1:2}", "\"a\u{01}\"", #""\x""#, #""\u12G4""#, "\"abc", "tru", "nul", "[", "{", "1 2", "",
        String(repeating: "9", count: 309),
    ])
    func whatTheCheckDoesNotDecideIsLeftToTheParser(_ text: String) {
        #expect(check(text) == nil, "\(text)")
    }

    @Test func longNumbersEndWhereTheirDigitsEnd() {
        #expect(check("[12345678901234567,1]")?.range == 0..<21)
        #expect(check("1234567890123456.25") != nil)
        #expect(check("[1234567890123456789]") != nil)
        #expect(check("1234567890123e5") == nil)
        #expect(check("123456789012345678x") == nil)
        #expect(check("12345678/") == nil)
        #expect(check("12345678:") == nil)
    }

    @Test func theDepthLimitIsKept() {
        #expect(check("[[1]]", maxDepth: 2) != nil)
        #expect(check("[[[1]]]", maxDepth: 2) == nil)
        #expect(check(#"{"a":{"b":1}}"#, maxDepth: 2) != nil)
        #expect(check(#"{"a":{"b":{}}}"#, maxDepth: 2) == nil)
    }

    @Test func aValueInsideContainersCountsThemTowardsTheDepthLimit() {
        func value(_ text: String, depth: Int, maxDepth: Int) -> JSONQuickCheck.Outcome? {
            Array(text.utf8).withUnsafeBufferPointer {
                JSONQuickCheck.value(in: $0, at: 0, depth: depth, maxDepth: maxDepth)
            }
        }
        #expect(value(#"{"a":{"b":1}} "#, depth: 1, maxDepth: 3)?.end == 13)
        #expect(value(#"{"a":{"b":1}}"#, depth: 1, maxDepth: 2) == nil)
        #expect(value(#"{"a":1,"a":2}"#, depth: 1, maxDepth: 2)?.namesAreUnique == false)
        #expect(value("[[1]]", depth: 1, maxDepth: 3)?.end == 5)
        #expect(value("[[1]]", depth: 1, maxDepth: 2) == nil)
        #expect(value("{}", depth: 2, maxDepth: 3)?.namesAreUnique == true)
        #expect(value("{}", depth: 3, maxDepth: 3) == nil)
        #expect(value(#""a""#, depth: 3, maxDepth: 3)?.end == 3)
    }

    @Test func eachContainerClosesWithItsOwnBracketAtItsOwnDepth() {
        #expect(check(#"[{"a":[{"b":[]}]},{}]"#, maxDepth: 5) != nil)
        #expect(check(#"[{"a":[{"b":[]}]},{}]"#, maxDepth: 4) == nil)
        #expect(check(#"[[[]],[[]]]"#, maxDepth: 3) != nil)
        for text in ["[1}", #"{"a":1]"#, #"[{"a":1]}"#, #"{"a":[1}}"#, "[[1]", "[1]]", #"{"a":{}"#] {
            #expect(check(text) == nil, "\(text)")
        }
    }

    @Test func anObjectsNamesAreKeptAcrossTheContainersInsideIt() {
        #expect(check(#"{"a":{"b":1},"b":2}"#)?.namesAreUnique == true)
        #expect(check(#"{"a":{"x":[{"y":1}]},"a":2}"#)?.namesAreUnique == false)
        #expect(check(#"[{"a":1},{"a":2}]"#)?.namesAreUnique == true)
    }

    @Test func numbersOfAtMost308IntegerDigitsNeedNoConversion() {
        #expect(check(String(repeating: "9", count: 308)) != nil)
        #expect(check("-" + String(repeating: "9", count: 308) + ".5") != nil)
    }

    @Test func namesThatRepeatOrMayRepeatAreNoted() {
        #expect(check(#"{"a":1,"b":{"a":2},"c":[{"a":3}]}"#)?.namesAreUnique == true)
        #expect(check(#"{"a":1,"b":2,"a":3}"#)?.namesAreUnique == false)
        #expect(check(#"{"x":{"a":1,"a":2}}"#)?.namesAreUnique == false)
        #expect(check(#"[{"a":1},{"b":1,"b":1}]"#)?.namesAreUnique == false)
        #expect(check(#"{"a":1,"\u0062":2}"#)?.namesAreUnique == false, "an escaped name may read as another")
        #expect(check(#"{"ab":1,"a":2,"b":3,"ba":4}"#)?.namesAreUnique == true)
        let many = (0..<10).map { #""n\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(check("{\(many)}")?.namesAreUnique == true)
        #expect(check("{\(many),\"n3\":3}")?.namesAreUnique == false)
        #expect(check(#"{"abc":1,"axc":2}"#)?.namesAreUnique == false, "names alike count as a repeat")
        #expect(check(#"{"":1}"#)?.namesAreUnique == false, "so does an empty name")
    }

    @Test func namesOfEveryLengthAreFoundWhereverTheirClosingQuoteIs() {
        for length in 1...12 {
            let name = String(repeating: "n", count: length - 1) + "m"
            let other = "o" + String(repeating: "n", count: length - 1)
            for text in [
                #"{"\#(name)":1}"#, #"{"\#(name)" : 1, "\#(other)":2}"#, #"{"\#(name)":"\#(name)","\#(other)":[]}"#,
                #"{"\#(name)":{"\#(name)":true}}"#,
            ] {
                #expect(check(text)?.range == parserRange(text), "\(text)")
                #expect(check(text)?.namesAreUnique == true, "\(text)")
            }
            #expect(check(#"{"\#(name)":1,"\#(name)":2}"#)?.namesAreUnique == false, "\(name)")
            #expect(check(#"{"\#(name)":1,"x":2,"\#(name)":3}"#)?.namesAreUnique == false, "\(name)")
        }
    }

    @Test func aShortNameWithAnEscapeOrAnotherSpecialByteIsCheckedAsAString() {
        #expect(check(#"{"a\"b":1,"x":2}"#)?.namesAreUnique == false, "an escaped name may read as another")
        #expect(check(#"{"ab\\":1,"x":2}"#)?.namesAreUnique == false)
        #expect(check(#"{"a\nb":1,"x":2}"#)?.namesAreUnique == false)
        #expect(check(#"{"a\q":1,"x":2}"#) == nil)
        #expect(check("{\"a\u{01}b\":1,\"x\":2}") == nil)
        #expect(check("{\"a\u{E9}b\":1,\"x\":2}") == nil)
        #expect(check(#"{"ab":1,"x":2}"#)?.namesAreUnique == true)
    }

    @Test func everyDecisionAgreesWithTheParser() {
        var generator = SeededGenerator(seed: 35)
        var decided = 0
        for round in 0..<4000 {
            var bytes = Array(RandomJSON.text(using: &generator).utf8)
            if round % 2 == 1 { RandomJSON.mutate(&bytes, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            let maxDepth = Int.random(in: 1...6, using: &generator)
            let quick = bytes.withUnsafeBufferPointer { JSONQuickCheck.text($0, maxDepth: maxDepth) }
            let parsed = bytes.withUnsafeBufferPointer { try? JSONParser.validate($0, maxDepth: maxDepth) }
            guard let quick else { continue }
            decided += 1
            #expect(quick.range == parsed, "\(text)")
        }
        #expect(decided > 1000)
    }

    @Test func aValueCheckedWithTheFactComparesAsItsTree() throws {
        let unique = try EncodedJSON(validating: Array(#"{"a":1,"b":2}"#.utf8))
        let repeated = try EncodedJSON(validating: Array(#"{"a":1,"a":2}"#.utf8))
        #expect(unique.namesAreUnique)
        #expect(!repeated.namesAreUnique)
        #expect(EncodedJSON(JSONValue.object(["a": 1])).namesAreUnique)
        #expect(repeated == (try EncodedJSON(validating: Array(#"{"a":2,"a":2}"#.utf8))))
        #expect(repeated == (try EncodedJSON(validating: Array(#"{"a":2}"#.utf8))))
        #expect(unique != (try EncodedJSON(validating: Array(#"{"a":2,"b":2}"#.utf8))))
    }
}
