import Testing

@testable import ObservatoryWire

@Suite struct JSONValueTests {
    @Test func integerAndDoubleWithTheSameValueAreEqualAndHashAlike() {
        #expect(JSONValue.integer(2) == .double(2.0))
        #expect(JSONValue.double(2.0) == .integer(2))
        #expect(JSONValue.integer(2).hashValue == JSONValue.double(2.0).hashValue)
        #expect(JSONValue.integer(0) == .double(-0.0))
        #expect(JSONValue.integer(0).hashValue == JSONValue.double(-0.0).hashValue)
        #expect(Set<JSONValue>([.integer(2), .double(2.0), .double(2.5)]).count == 2)
    }

    @Test func differentNumbersAreNotEqual() {
        #expect(JSONValue.integer(2) != .double(2.5))
        #expect(JSONValue.integer(.max) != .double(9_223_372_036_854_775_808.0))
        #expect(JSONValue.integer(9_007_199_254_740_993) != .double(9_007_199_254_740_992))
        #expect(JSONValue.integer(1) != .bool(true))
        #expect(JSONValue.integer(0) != .null)
        #expect(JSONValue.string("1") != .integer(1))
    }

    @Test func objectsAreEqualRegardlessOfKeyOrderAndHashAlike() throws {
        let first = try json(#"{"a":1,"b":[2,{"c":3,"d":4}]}"#)
        let second = try json(#"{"b":[2,{"d":4,"c":3}],"a":1.0}"#)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
    }

    @Test func largeObjectsAreEqualRegardlessOfKeyOrder() {
        let pairs = (0..<50).map { ("k\($0)", JSONValue.integer(Int64($0))) }
        let forward = JSONValue.object(JSONObject(pairs))
        let backward = JSONValue.object(JSONObject(pairs.reversed()))
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        var changed = JSONObject(pairs)
        changed["k7"] = "other"
        #expect(forward != .object(changed))
    }

    @Test func objectsWithDifferentMembersAreNotEqual() throws {
        #expect(try json(#"{"a":1}"#) != json(#"{"a":1,"b":2}"#))
        #expect(try json(#"{"a":1}"#) != json(#"{"b":1}"#))
        #expect(try json(#"{"a":1}"#) != json(#"{"a":2}"#))
    }

    @Test func arraysKeepOrderInEquality() {
        #expect(JSONValue.array([1, 2]) != .array([2, 1]))
        #expect(JSONValue.array([1, 2.0]) == .array([1.0, 2]))
    }

    @Test func notANumberEqualsItselfSoHashingStaysSound() {
        #expect(JSONValue.double(.nan) == .double(.nan))
        #expect(JSONValue.double(.nan).hashValue == JSONValue.double(.nan).hashValue)
    }

    @Test func accessorsReturnTheirCaseOrNil() throws {
        let value = try json(#"{"s":"x","i":3,"d":2.0,"f":2.5,"b":true,"n":null,"a":[1],"o":{"k":1}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.integerValue == 3)
        #expect(value["d"]?.integerValue == 2)
        #expect(value["f"]?.integerValue == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["i"]?.doubleValue == 3)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?[0] == 1)
        #expect(value["a"]?[1] == nil)
        #expect(value["o"]?["k"] == 1)
        #expect(value["missing"] == nil)
        #expect(value["s"]?.integerValue == nil)
        #expect(JSONValue.integer(1)["k"] == nil)
        #expect(value.objectValue?.count == 8)
        #expect(value["a"]?.arrayValue == [1])
    }

    @Test func integerValueRejectsDoublesOutsideInt64() {
        #expect(JSONValue.double(9_223_372_036_854_775_808.0).integerValue == nil)
        #expect(JSONValue.double(-9_223_372_036_854_775_808.0).integerValue == .min)
        #expect(JSONValue.double(.infinity).integerValue == nil)
    }

    @Test func literalsBuildTheMatchingCases() {
        let value: JSONValue = ["n": nil, "b": true, "i": 1, "d": 1.5, "s": "x", "a": [1, "y"]]
        #expect(value["n"] == .null)
        #expect(value["b"] == .bool(true))
        if case .integer(1)? = value["i"] {} else { Issue.record("integer literal must be .integer") }
        if case .double(1.5)? = value["d"] {} else { Issue.record("float literal must be .double") }
        #expect(value["s"] == .string("x"))
        #expect(value["a"] == .array([.integer(1), .string("y")]))
    }
}
