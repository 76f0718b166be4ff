import Foundation
import Testing

@testable import ObservatoryWire

private struct Lamp: Codable, Equatable {
    enum Mode: String, Codable { case warm, cold }
    var name: String
    var on: Bool
    var level: Int8
    var brightness: Double
    var mode: Mode
    var tags: [String]
    var schedule: [String: Int]
    var note: String?
    var big: Int64
    var extra: JSONValue
}

private struct Counter: Codable, Equatable {
    var count: UInt8
}

@Suite struct JSONValueCodableTests {
    private let lamp = Lamp(
        name: "desk", on: true, level: -3, brightness: 0.1, mode: .warm, tags: ["a", "b"],
        schedule: ["mon": 7], note: nil, big: .min, extra: ["keep": [1, 2.5]]
    )

    @Test func encodableValuesBecomeJSONValuesDirectly() throws {
        let value = try JSONValue(encoding: lamp)
        #expect(value["name"] == "desk")
        #expect(value["level"] == .integer(-3))
        #expect(value["brightness"] == .double(0.1))
        #expect(value["mode"] == "warm")
        #expect(value["schedule"] == ["mon": 7])
        #expect(value["big"] == .integer(.min))
        #expect(value["extra"] == ["keep": [1, 2.5]])
        #expect(value["note"] == nil)
        #expect(value.objectValue?.keys.first == "name")
    }

    @Test func decodingReversesEncoding() throws {
        let value = try JSONValue(encoding: lamp)
        #expect(try value.decode(Lamp.self) == lamp)
        #expect(try JSONValue.parse(value.encoded()).decode(Lamp.self) == lamp)
    }

    @Test func scalarsAndCollectionsRoundTrip() throws {
        #expect(try JSONValue(encoding: Int64.max).decode(Int64.self) == .max)
        #expect(try JSONValue(encoding: Double.leastNonzeroMagnitude).decode(Double.self) == .leastNonzeroMagnitude)
        #expect(try JSONValue(encoding: "😀").decode(String.self) == "😀")
        #expect(try JSONValue(encoding: [1, 2, 3]).decode([Int].self) == [1, 2, 3])
        #expect(try JSONValue(encoding: [Int?.none, 1]).decode([Int?].self) == [nil, 1])
        #expect(try JSONValue(encoding: Float(0.1)) == .double(0.1))
    }

    @Test func optionalJSONValuesDecodeNullAsNil() throws {
        let decoded = try JSONValue.array([nil, 1]).decode([JSONValue?].self)
        #expect(decoded == [nil, .integer(1)])
        #expect(try JSONValue(encoding: [JSONValue?.none, .some(2)]) == [nil, 2])
    }

    @Test func wholeDoublesDecodeAsIntegersButFractionsDoNot() throws {
        #expect(try JSONValue.double(2.0).decode(Int.self) == 2)
        #expect(throws: DecodingError.self) { try JSONValue.double(2.5).decode(Int.self) }
        #expect(try JSONValue.integer(3).decode(Double.self) == 3)
    }

    @Test func integersOutOfRangeAreDecodingErrorsWithThePath() throws {
        let value: JSONValue = ["count": 300]
        do {
            _ = try value.decode(Counter.self)
            Issue.record("300 must not decode as UInt8")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["count"])
        }
    }

    @Test func missingKeysAndWrongTypesAreDecodingErrors() {
        #expect(throws: DecodingError.self) { try JSONValue.object([:]).decode(Counter.self) }
        #expect(throws: DecodingError.self) { try JSONValue.object(["count": "x"]).decode(Counter.self) }
        #expect(throws: DecodingError.self) { try JSONValue.array([]).decode(Counter.self) }
        #expect(throws: DecodingError.self) { try JSONValue.array([1]).decode([String].self) }
    }

    @Test func nonFiniteDoublesAndHugeUnsignedIntegersCannotBeEncoded() {
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Double.nan) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Double.infinity) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: UInt64.max) }
    }

    @Test func jsonValueRoundTripsThroughFoundationCoders() throws {
        let value = try json(#"{"a":[1,2.5,"x",null,true],"b":{"c":-9223372036854775808}}"#)
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
        #expect(try JSONValue.parse(Array(data)) == value)
    }
}
