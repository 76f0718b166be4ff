import Testing

@testable import ObservatoryWire

@Suite struct JSONObjectTests {
    @Test func membersKeepInsertionOrder() {
        let object: JSONObject = ["b": 1, "a": 2, "c": 3]
        #expect(object.keys == ["b", "a", "c"])
        #expect(object.map(\.key) == ["b", "a", "c"])
    }

    @Test func repeatedKeysKeepTheFirstPositionAndTheLastValue() {
        let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test func settingAValueReplacesAppendsOrRemoves() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 10
        object["c"] = 3
        object["b"] = nil
        object["missing"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object["a"] == 10)
        #expect(object["c"] == 3)
    }

    @Test func emptyObjectsAreEqual() {
        #expect(JSONObject() == [:])
        #expect(JSONObject().isEmpty)
    }
}
