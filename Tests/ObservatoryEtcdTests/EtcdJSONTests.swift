import Testing

@testable import ObservatoryEtcd

/// The gateway's JSON read and written with the project's JSON layer: numbers from
/// strings or numbers, identifiers over Int64's range, zero values left out,
/// members in key order, and the error messages that name the field.
@Suite struct EtcdJSONTests {
    private func object(_ text: String) throws -> EtcdJSON.Object {
        try EtcdJSON.object(from: text.bytes)
    }

    /// What `body` threw, as the detail of an `invalidResponse` error (nil for anything else).
    private func message(_ body: () throws(EtcdError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            let prefix = "etcd's answer was not understood: "
            guard error.code == .invalidResponse, error.message.hasPrefix(prefix) else { return error.message }
            return String(error.message.dropFirst(prefix.count))
        }
    }

    @Test func integersComeFromDecimalStringsOrNumbersAndAreZeroWhenAbsent() throws {
        let answer = try object(#"{"a":"-12","b":34,"c":5.0,"d":null}"#)
        #expect(try EtcdJSON.integer(answer, "a") == -12)
        #expect(try EtcdJSON.integer(answer, "b") == 34)
        #expect(try EtcdJSON.integer(answer, "c") == 5)
        #expect(try EtcdJSON.integer(answer, "d") == 0)
        #expect(try EtcdJSON.integer(answer, "absent") == 0)
    }

    @Test func identifiersAboveInt64ComeFromStrings() throws {
        let answer = try object(#"{"cluster_id":"18446744073709551615","member_id":7}"#)
        #expect(try EtcdJSON.identifier(answer, "cluster_id") == UInt64.max)
        #expect(try EtcdJSON.identifier(answer, "member_id") == 7)
    }

    @Test func numbersThatAreNotWholeOrInRangeAreInvalidWithTheFieldNamed() throws {
        let answer = try object(#"{"fraction":1.5,"negative":-1,"word":"twelve","list":[1]}"#)
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.integer(answer, "fraction") }
                == "the field fraction is not an integer: 1.5")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.identifier(answer, "negative") }
                == "the field negative is not an identifier: -1")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.integer(answer, "word") }
                == "the field word is not an integer: twelve")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.integer(answer, "list") }
                == "the field list is not an integer")
    }

    @Test func booleansStringsObjectsAndArraysCheckTheirType() throws {
        let answer = try object(#"{"flag":true,"one":1,"text":"t","nested":{"x":1},"list":[{"y":2}],"mixed":[{},3]}"#)
        #expect(try EtcdJSON.boolean(answer, "flag"))
        #expect(try EtcdJSON.boolean(answer, "one"))
        #expect(try !EtcdJSON.boolean(answer, "absent"))
        #expect(try EtcdJSON.string(answer, "text") == "t")
        #expect(try EtcdJSON.optionalObject(answer, "nested")?["x"] == 1)
        #expect(try EtcdJSON.objects(answer, "list").count == 1)
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.boolean(answer, "text") }
                == "the field text is not a boolean")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.string(answer, "one") }
                == "the field one is not a string")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.optionalObject(answer, "list") }
                == "the field list is not an object")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.objects(answer, "mixed") }
                == "the field mixed is not an array of objects")
    }

    @Test func anAnswerThatIsNotAnObjectSaysWhatCameBack() {
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.object(from: "[1]".bytes) }
                == "the body is not a JSON object: [1]")
        #expect(
            message { () throws(EtcdError) in _ = try EtcdJSON.object(from: "{".bytes) }
                == "the body is not JSON: {")
    }

    @Test func requestsLeaveZeroValuesOutAndWriteMembersInKeyOrder() {
        let request = EtcdJSON.object([("value", "dg=="), ("lease", nil), ("key", "aw=="), ("prev_kv", true)])
        #expect(
            String(decoding: EtcdJSON.bytes(of: request), as: UTF8.self)
                == #"{"key":"aw==","prev_kv":true,"value":"dg=="}"#)
    }
}
