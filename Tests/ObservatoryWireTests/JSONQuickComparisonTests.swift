import ObservatoryTestSupport
import Testing

@testable import ObservatoryWire

@Suite struct JSONQuickComparisonTests {
    private func verdict(_ left: String, _ right: String) -> JSONQuickComparison.Verdict {
        Array(left.utf8).withUnsafeBufferPointer { left in
            Array(right.utf8).withUnsafeBufferPointer { right in JSONQuickComparison.compare(left, right) }
        }
    }

    @Test func sameShapedValuesAreDecidedFromTheBytes() {
        let old = #"{"r":255,"g":128,"b":0,"name":"orange"}"#
        #expect(verdict(old, #"{"r":255,"g":129,"b":0,"name":"orange"}"#) == .unequal)
        #expect(verdict(old, #"{"r":255,"g":128,"b":0,"name":"red"}"#) == .unequal)
        #expect(verdict(old, #"{ "r" : 255, "g" : 128.0, "b" : 0, "name" : "orange" }"#) == .equal)
        #expect(verdict("[1,2,3]", "[1,2]") == .unequal)
        #expect(verdict("[1,2,3]", "[1,2,3.0]") == .equal)
        #expect(verdict("true", "null") == .unequal)
        #expect(verdict("{}", #"{"a":1}"#) == .unequal)
        #expect(verdict(#"{"a":1,"b":"a","c":"\"a\""}"#, #"{"a":2,"b":"a","c":"\"a\""}"#) == .unequal)
    }

    @Test func whatTheBytesCannotTellIsLeftToTheTrees() {
        #expect(verdict(#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#) == .undecided)
        #expect(verdict(#"{"a":1,"a":2}"#, #"{"a":2,"a":2}"#) == .undecided)
        #expect(verdict(#"{"a":1,"a":2}"#, #"{"a":2}"#) == .undecided)
        #expect(verdict(#"{"a":1,"b":2,"a":3}"#, #"{"a":2,"b":2,"a":3}"#) == .undecided, "a later a decides")
        #expect(
            verdict(#"{"a":1,"b":2,"\u0061":3}"#, #"{"a":2,"b":2,"\u0061":3}"#) == .undecided, "so may an escaped a")
        #expect(verdict(#""\u0041""#, #""A""#) == .undecided)
        #expect(verdict(#""é""#, #""e\u0301""#) == .undecided)
    }

    @Test func everyVerdictAgreesWithTheTrees() throws {
        var generator = SeededGenerator(seed: 2026)
        var decided = 0
        for _ in 0..<3000 {
            let text = RandomJSON.text(using: &generator)
            guard let value = try? JSONValue.parse(text) else { continue }
            let other = Bool.random(using: &generator) ? value : RandomJSON.changed(value, using: &generator)
            let otherText = RandomJSON.respell(other, using: &generator)
            let expected = value == (try json(otherText))
            switch verdict(text, otherText) {
            case .equal:
                decided += 1
                #expect(expected, "\(text) and \(otherText) are not equal")
            case .unequal:
                decided += 1
                #expect(!expected, "\(text) and \(otherText) are equal")
            case .undecided:
                break
            }
            let equal = try EncodedJSON(validating: Array(text.utf8)) == EncodedJSON(validating: Array(otherText.utf8))
            #expect(equal == expected, "\(text) and \(otherText)")
        }
        #expect(decided > 500)
    }
}

@Suite struct JSONQuickComparisonUniqueNamesTests {
    private func verdict(_ left: String, _ right: String, namesAreUnique: Bool) -> JSONQuickComparison.Verdict {
        Array(left.utf8).withUnsafeBufferPointer { left in
            Array(right.utf8).withUnsafeBufferPointer { right in
                JSONQuickComparison.compare(left, right, namesAreUnique: namesAreUnique)
            }
        }
    }

    @Test func valuesWithoutRepeatedNamesDifferAtTheirFirstDifferingMember() {
        // The texts repeat a name, which the fact denies: the verdict shows where the comparison stopped.
        #expect(verdict(#"{"a":1,"a":2}"#, #"{"a":2,"a":2}"#, namesAreUnique: true) == .unequal)
        #expect(verdict(#"{"a":1,"a":2}"#, #"{"a":2,"a":2}"#, namesAreUnique: false) == .undecided)
    }

    @Test func valuesWithoutRepeatedNamesDifferWhenOneHasMoreMembers() {
        #expect(verdict(#"{"a":1}"#, #"{"a":1,"b":2}"#, namesAreUnique: true) == .unequal)
        #expect(verdict(#"{"a":1}"#, #"{"a":1,"b":2}"#, namesAreUnique: false) == .undecided)
    }

    @Test func integersAreComparedAsIntegers() {
        #expect(verdict(#"{"seq":17,"ts":1}"#, #"{"seq":18,"ts":1}"#, namesAreUnique: true) == .unequal)
        #expect(verdict("-0", "0", namesAreUnique: true) == .equal)
        #expect(verdict("123456789012345678", "123456789012345679", namesAreUnique: true) == .unequal)
        #expect(verdict("12", "12.0", namesAreUnique: true) == .equal)
    }
}
