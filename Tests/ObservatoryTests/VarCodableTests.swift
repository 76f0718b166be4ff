import Foundation
import Observatory
import Testing

/// A type that becomes `Codable` by holding `Var`s and adopting `Codable`,
/// as in seed 000.
private final class Document: Codable {
    private(set) var text = Var("String Variable")
    private(set) var count = Var<Int?>(nil)
}

/// A model of several variables, as a SwiftObserver app would have saved it.
private struct Profile: Codable {
    var name = Var("")
    var age = Var(0)
    var nickname = Var<String?>(nil)
    var languages = Var<[String]>([])
}

/// The same model with plain values: what `Profile` must encode like.
private struct PlainProfile: Codable, Equatable {
    var name: String
    var age: Int
    var nickname: String?
    var languages: [String]
}

/// A value whose own encoding is an object with a `storedValue` key.
private struct Reading: Codable, Equatable {
    var storedValue: Int
}

/// Settings whose properties are all optional: they decode from any object,
/// also from SwiftObserver's `{"storedValue": …}` around them.
private struct Settings: Codable, Equatable {
    var theme: String?
    var fontSize: Int?
}

/// Decodes JSON text.
private func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws -> Value {
    try JSONDecoder().decode(type, from: Data(json.utf8))
}

@Suite struct VarCodableTests {
    @Test func variableEncodesAsItsValueAlone() throws {
        let data = try JSONEncoder().encode(Var(5))
        #expect(String(decoding: data, as: UTF8.self) == "5")
        #expect(try JSONDecoder().decode(Var<Int>.self, from: data).value == 5)
    }

    @Test func typeHoldingVariablesRoundTripsThroughJSON() throws {
        let document = Document()
        document.text <- "edited"
        document.count <- 3

        let data = try JSONEncoder().encode(document)
        let decoded = try JSONDecoder().decode(Document.self, from: data)

        #expect(decoded.text.value == "edited")
        #expect(decoded.count.value == 3)
    }

    @Test func decodedVariableSendsUpdates() throws {
        let decoded = try JSONDecoder().decode(Var<String>.self, from: Data(#""old""#.utf8))
        let observer = TestObserver()
        var updates: [Update<String>] = []
        observer.observe(decoded) { updates.append($0) }

        decoded <- "new"

        #expect(updates == [Update("old", "new")])
    }

    // MARK: Data saved by SwiftObserver

    @Test func variableDecodesFromSwiftObserversStoredValueForm() throws {
        #expect(try decode(Var<Int>.self, from: #"{"storedValue": 5}"#).value == 5)
        #expect(try decode(Var<String>.self, from: #"{"storedValue": "saved"}"#).value == "saved")
    }

    @Test func optionalVariableDecodesSwiftObserversNull() throws {
        #expect(try decode(Var<Int?>.self, from: #"{"storedValue": null}"#).value == nil)
        #expect(try decode(Var<Int?>.self, from: #"{"storedValue": 4}"#).value == 4)
    }

    @Test func modelSavedBySwiftObserverLoads() throws {
        let saved = #"""
            {
                "name": {"storedValue": "Ada"},
                "age": {"storedValue": 36},
                "nickname": {"storedValue": null},
                "languages": {"storedValue": ["English", "French"]}
            }
            """#

        let profile = try decode(Profile.self, from: saved)

        #expect(profile.name.value == "Ada")
        #expect(profile.age.value == 36)
        #expect(profile.nickname.value == nil)
        #expect(profile.languages.value == ["English", "French"])
    }

    @Test func modelSavedBySwiftObserverIsSavedAgainAsBareValues() throws {
        let saved =
            #"{"name": {"storedValue": "Ada"}, "age": 36, "nickname": {"storedValue": "Countess"}, "languages": []}"#
        let profile = try decode(Profile.self, from: saved)

        let resaved = try JSONDecoder().decode(PlainProfile.self, from: JSONEncoder().encode(profile))

        #expect(resaved == PlainProfile(name: "Ada", age: 36, nickname: "Countess", languages: []))
    }

    // MARK: Values that are objects with a `storedValue` key

    @Test func dictionaryKeyedByStoredValueReadsAsTheBareValue() throws {
        let variable = try decode(Var<[String: Int]>.self, from: #"{"storedValue": 3}"#)
        #expect(variable.value == ["storedValue": 3])
    }

    @Test func valueThatReadsTheStoredValueKeyWinsWhenBothFormsWouldDecode() throws {
        let json = #"{"storedValue": {"storedValue": {}}}"#

        let variable = try decode(Var<[String: [String: [String: Int]]]>.self, from: json)

        #expect(variable.value == ["storedValue": ["storedValue": [:]]])
    }

    @Test func valueThatIgnoresTheStoredValueKeyIsReadFromSwiftObserversForm() throws {
        let saved = #"{"storedValue": {"theme": "dark", "fontSize": 14}}"#

        let variable = try decode(Var<Settings>.self, from: saved)

        #expect(variable.value == Settings(theme: "dark", fontSize: 14))
    }

    @Test func valueWithoutTheStoredValueKeyReadsAsTheBareValue() throws {
        let variable = try decode(Var<Settings>.self, from: #"{"theme": "light"}"#)
        #expect(variable.value == Settings(theme: "light"))
    }

    @Test func structWithAStoredValuePropertyDecodesInBothForms() throws {
        #expect(try decode(Var<Reading>.self, from: #"{"storedValue": 5}"#).value == Reading(storedValue: 5))
        #expect(
            try decode(Var<Reading>.self, from: #"{"storedValue": {"storedValue": 6}}"#).value
                == Reading(storedValue: 6))
    }

    @Test func decodersDateStrategyAppliesToBothForms() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let moment = Date(timeIntervalSince1970: 1_795_564_800)

        let bare = try decoder.decode(Var<Date>.self, from: Data(#""2026-11-25T00:00:00Z""#.utf8))
        let saved = try decoder.decode(Var<Date>.self, from: Data(#"{"storedValue": "2026-11-25T00:00:00Z"}"#.utf8))

        #expect(bare.value == moment)
        #expect(saved.value == moment)
    }

    @Test func objectWithKeysBesidesStoredValueIsNotSwiftObserversForm() {
        #expect(throws: DecodingError.self) {
            try decode(Var<Int>.self, from: #"{"storedValue": 5, "other": 1}"#)
        }
    }

    @Test func dataInNeitherFormFailsWithTheBareValuesError() {
        #expect {
            try decode(Var<Int>.self, from: #"{"storedValue": "five"}"#)
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.codingPath.isEmpty
        }
    }
}
