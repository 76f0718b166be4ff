import ObservatoryWire
import Testing

@Suite struct RequestTests {
    private func decode(_ frame: String, limits: RequestLimits = .default) -> Result<
        Request<JSONValue>, RequestRejection
    > {
        Request<JSONValue>.decode(frame: Array(frame.utf8), limits: limits)
    }

    /// The decoded request, recording an issue if the frame was rejected.
    private func request(
        _ frame: String, limits: RequestLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Request<JSONValue>? {
        switch decode(frame, limits: limits) {
        case .success(let request):
            return request
        case .failure(let rejection):
            Issue.record("rejected: \(rejection.error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The rejection, recording an issue if the frame was accepted.
    private func rejection(
        _ frame: String, limits: RequestLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestRejection? {
        rejection(Array(frame.utf8), limits: limits, sourceLocation: sourceLocation)
    }

    private func rejection(
        _ frame: [UInt8], limits: RequestLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestRejection? {
        switch Request<JSONValue>.decode(frame: frame, limits: limits) {
        case .success(let request):
            Issue.record("accepted: \(request)", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            return rejection
        }
    }

    // MARK: Frames that are not requests

    @Test(arguments: ["not json", "[1,2]", "42", "\"op\"", "null", "true", "{\"op\":\"ping\"", "{\"op\":\"ping\"} {}"])
    func framesThatAreNotOneJSONObjectAreBadFramesWithNullID(_ frame: String) {
        let rejection = rejection(frame)
        #expect(rejection?.id == nil)
        #expect(rejection?.error.code == .badFrame)
    }

    @Test func invalidUTF8IsABadFrameWithNullID() {
        let frame: [UInt8] = Array("{\"id\":1,\"op\":\"get\",\"key\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        let rejection = rejection(frame)
        #expect(rejection?.id == nil)
        #expect(rejection?.error.code == .badFrame)
        #expect(rejection?.error.message.contains("UTF-8") == true)
    }

    @Test func framesNestedBeyondTheDepthLimitAreBadFrames() {
        let deep = "{\"op\":\"set\",\"key\":\"k\",\"value\":" + nestedArrays(depth: 64) + "}"
        #expect(rejection(deep)?.error.code == .badFrame)
        let shallow = "{\"op\":\"set\",\"key\":\"k\",\"value\":" + nestedArrays(depth: 63) + "}"
        #expect(request(shallow) != nil)
    }

    @Test func badFrameMessagesSayWhatWasFound() {
        #expect(rejection("[1]")?.error.message == "frame must be one JSON object on one line: got an array")
    }

    // MARK: id and op

    @Test func stringAndIntegerIDsAreEchoed() {
        #expect(request(#"{"id":"a7","op":"ping"}"#)?.id == .string("a7"))
        #expect(request(#"{"id":-9223372036854775808,"op":"ping"}"#)?.id == .integer(.min))
        #expect(request(#"{"op":"ping"}"#)?.id == nil)
    }

    @Test(arguments: [#"null"#, #"true"#, #"1.5"#, #"7.0"#, #"[1]"#, #"{"n":1}"#, #"1e3"#])
    func idsOfOtherTypesAreBadRequestsWithNullID(_ id: String) {
        let rejection = rejection(#"{"id":\#(id),"op":"ping"}"#)
        #expect(rejection?.id == nil)
        #expect(rejection?.error.code == .badRequest)
        #expect(rejection?.error.message.contains("\"id\"") == true)
    }

    @Test func missingOpIsABadRequestEchoingTheID() {
        let rejection = rejection(#"{"id":7,"key":"k"}"#)
        #expect(rejection?.id == .integer(7))
        #expect(rejection?.error == WireError(code: .badRequest, message: "field \"op\" is required (a string)"))
    }

    @Test(arguments: ["5", "null", "[\"get\"]", "true"])
    func opThatIsNotAStringIsABadRequestEchoingTheID(_ op: String) {
        let rejection = rejection(#"{"id":"x","op":\#(op)}"#)
        #expect(rejection?.id == .string("x"))
        #expect(rejection?.error.code == .badRequest)
        #expect(rejection?.error.message.contains("\"op\"") == true)
    }

    @Test func anEmptyObjectIsABadRequestWithNullID() {
        let rejection = rejection("{}")
        #expect(rejection?.id == nil)
        #expect(rejection?.error.code == .badRequest)
    }

    @Test func unknownOpsAreRejectedWithUnknownOperation() {
        let rejection = rejection(#"{"id":3,"op":"explode"}"#)
        #expect(rejection?.id == .integer(3))
        #expect(rejection?.error.code == .unknownOperation)
        #expect(
            rejection?.error.message
                == "unknown op \"explode\"; expected one of: hello, get, set, delete, observe, unobserve, list, ping, history, batch"
        )
        #expect(self.rejection(#"{"op":"GET","key":"k"}"#)?.error.code == .unknownOperation)
    }

    @Test func unknownFieldsAreIgnored() {
        #expect(request(#"{"op":"get","key":"k","colour":"blue","nested":{"x":[1]}}"#)?.operation == .get(key: "k"))
    }

    @Test func anUnknownFieldMustStillBeValidJSON() {
        #expect(rejection(#"{"op":"ping","extra":[1,}"#)?.error.code == .badFrame)
        #expect(
            rejection(Array(#"{"op":"ping","extra":""#.utf8) + [0xFF] + Array(#""}"#.utf8))?.error.code == .badFrame)
        #expect(rejection(Array(#"{"op":"ping",""#.utf8) + [0xC3] + Array(#"":1}"#.utf8))?.error.code == .badFrame)
    }

    @Test func fieldNamesAreMatchedAfterUnescaping() {
        #expect(request(#"{"\u006fp":"get","k\u0065y":"k"}"#)?.operation == .get(key: "k"))
    }

    @Test(arguments: [#""ke""#, #""keys""#, #""Key""#, #""key\u0000""#, #""\u006bey ""#])
    func namesThatOnlyResembleAFieldAreUnknownFields(_ name: String) {
        #expect(
            rejection(#"{"op":"get",\#(name):"k"}"#)?.error
                == WireError(code: .badRequest, message: "field \"key\" is required (a string)"))
    }

    @Test func aRepeatedFieldKeepsItsLastValue() {
        #expect(request(#"{"op":"ping","op":"get","key":"a","key":"b"}"#)?.operation == .get(key: "b"))
        #expect(request(#"{"id":1,"op":"get","key":"a","id":"x"}"#)?.id == .string("x"))
    }

    @Test func everyFieldOfEveryOperationIsFound() {
        let frame = #"{"id":"r","op":"set","key":"k","value":[1],"ifVersion":4,"ephemeral":true,"requestId":"u-1"}"#
        #expect(
            request(frame)
                == Request<JSONValue>(
                    id: .string("r"),
                    operation: .set(key: "k", value: [1], ifVersion: 4, sessionBound: true, requestId: "u-1")))
        #expect(
            request(#"{"op":"observe","prefix":"a.","fromRevision":3,"epoch":"e1"}"#)?.operation
                == .observe(.prefix("a."), from: ResumePoint(revision: 3, epoch: "e1")))
        #expect(
            request(#"{"op":"list","prefix":"a.","after":"a.b","limit":2}"#)?.operation
                == .list(prefix: "a.", after: "a.b", limit: 2))
        #expect(
            request(#"{"op":"hello","name":"n","token":"t","protocol":2}"#)?.operation
                == .hello(name: "n", token: "t", protocolVersion: 2))
        #expect(
            request(#"{"op":"delete","key":"k","ifVersion":1,"requestId":"u-2"}"#)?.operation
                == .delete(key: "k", ifVersion: 1, requestId: "u-2"))
    }

    // MARK: hello

    @Test func helloDecodesAllFields() {
        let decoded = request(#"{"id":1,"op":"hello","name":"alice","token":"s3cret","protocol":1}"#)
        #expect(
            decoded
                == Request<JSONValue>(
                    id: .integer(1), operation: .hello(name: "alice", token: "s3cret", protocolVersion: 1)))
    }

    @Test func helloFieldsAreOptionalAndProtocolDefaultsToOne() {
        #expect(request(#"{"op":"hello"}"#)?.operation == .hello(name: nil, token: nil, protocolVersion: 1))
        #expect(
            request(#"{"op":"hello","name":null,"protocol":2.0}"#)?.operation
                == .hello(name: nil, token: nil, protocolVersion: 2))
    }

    @Test(arguments: [
        (#"{"op":"hello","name":5}"#, "name"), (#"{"op":"hello","token":["t"]}"#, "token"),
        (#"{"op":"hello","protocol":"1"}"#, "protocol"), (#"{"op":"hello","protocol":0}"#, "protocol"),
        (#"{"op":"hello","protocol":1.5}"#, "protocol"),
    ])
    func helloWithIllTypedFieldsIsABadRequestNamingTheField(_ frame: String, _ field: String) {
        let rejection = rejection(frame)
        #expect(rejection?.error.code == .badRequest)
        #expect(rejection?.error.message.contains("\"\(field)\"") == true)
    }

    // MARK: get

    @Test func getDecodesItsKey() {
        #expect(
            request(#"{"id":"g","op":"get","key":"kitchen.light"}"#)
                == Request<JSONValue>(id: .string("g"), operation: .get(key: "kitchen.light")))
    }

    @Test func getWithoutKeyIsABadRequestNamingKey() {
        let rejection = rejection(#"{"id":2,"op":"get"}"#)
        #expect(rejection?.id == .integer(2))
        #expect(rejection?.error == WireError(code: .badRequest, message: "field \"key\" is required (a string)"))
    }

    @Test func getWithANonStringKeyIsABadRequestSayingWhatCame() {
        #expect(rejection(#"{"op":"get","key":5}"#)?.error.message == "field \"key\" must be a string, got an integer")
    }

    @Test(arguments: [#""""#, #""a b""#, #""a\u0000""#, "\"\(String(repeating: "k", count: 257))\""])
    func getWithAnInvalidKeyIsInvalidKey(_ key: String) {
        let rejection = rejection(#"{"id":4,"op":"get","key":\#(key)}"#)
        #expect(rejection?.id == .integer(4))
        #expect(rejection?.error.code == .invalidKey)
    }

    // MARK: set

    @Test func setDecodesKeyValueAndIfVersion() {
        #expect(
            request(#"{"op":"set","key":"k","value":{"b":[1,2.5]},"ifVersion":3}"#)?.operation
                == .set(key: "k", value: ["b": [1, 2.5]], ifVersion: 3))
        #expect(
            request(#"{"op":"set","key":"k","value":null}"#)?.operation == .set(key: "k", value: .null, ifVersion: nil))
        #expect(
            request(#"{"op":"set","key":"k","value":1,"ifVersion":0}"#)?.operation
                == .set(key: "k", value: 1, ifVersion: 0))
        #expect(
            request(#"{"op":"set","key":"k","value":1,"ifVersion":null}"#)?.operation
                == .set(key: "k", value: 1, ifVersion: nil))
    }

    @Test func setWithoutValueIsABadRequestNamingValue() {
        #expect(
            rejection(#"{"op":"set","key":"k"}"#)?.error
                == WireError(code: .badRequest, message: "field \"value\" is required (any JSON value)"))
    }

    @Test(arguments: ["-1", "1.5", "\"3\"", "true", "[1]", "1e30"])
    func setWithAnIfVersionThatIsNotANonNegativeIntegerIsABadRequest(_ version: String) {
        let rejection = rejection(#"{"op":"set","key":"k","value":1,"ifVersion":\#(version)}"#)
        #expect(rejection?.error.code == .badRequest)
        #expect(rejection?.error.message.hasPrefix("field \"ifVersion\" must be an integer ≥ 0") == true)
    }

    @Test func setWithAnInvalidKeyIsInvalidKey() {
        #expect(rejection(#"{"op":"set","key":"a\tb","value":1}"#)?.error.code == .invalidKey)
    }

    @Test func setValuesAreMeasuredByTheirCompactEncoding() {
        let limits = RequestLimits(maxValueBytes: 7)
        // {"a":1} is 7 bytes compact, however much whitespace was sent.
        #expect(request(#"{"op":"set","key":"k","value":{ "a" :  1 }}"#, limits: limits) != nil)
        let rejection = rejection(#"{"id":9,"op":"set","key":"k","value":{"a":10}}"#, limits: limits)
        #expect(rejection?.id == .integer(9))
        #expect(
            rejection?.error
                == WireError(
                    code: .valueTooLarge,
                    message: "value is 8 bytes when encoded; the limit is 7 bytes (limits.maxValueBytes)"))
    }

    @Test func numbersThatGrowWhenEncodedAreMeasuredAfterGrowing() {
        let frame = #"{"op":"set","key":"k","value":[1e15,1e15,1e15]}"#
        #expect(frame.utf8.count == 47)
        // Encoded: [1000000000000000,1000000000000000,1000000000000000], 52 bytes.
        #expect(
            rejection(frame, limits: RequestLimits(maxValueBytes: 50))?.error
                == WireError(
                    code: .valueTooLarge,
                    message: "value is 52 bytes when encoded; the limit is 50 bytes (limits.maxValueBytes)"))
        #expect(request(frame, limits: RequestLimits(maxValueBytes: 52)) != nil)
    }

    @Test func decodingAnObjectDirectlyAppliesTheSameRules() throws {
        let object = try #require(json(#"{"id":1,"op":"set","key":"k","value":"abcdef"}"#).objectValue)
        #expect(
            Request<JSONValue>.decode(object: object, limits: RequestLimits(maxValueBytes: 8))
                == .success(
                    Request<JSONValue>(id: .integer(1), operation: .set(key: "k", value: "abcdef", ifVersion: nil))))
        #expect(
            Request<JSONValue>.decode(object: object, limits: RequestLimits(maxValueBytes: 7))
                == .failure(RequestRejection(id: .integer(1), error: .valueTooLarge(size: 8, limit: 7))))
    }

    @Test func theDefaultValueLimitIs512KiB() {
        let fits = String(repeating: "x", count: 512 * 1024 - 2)
        #expect(request(#"{"op":"set","key":"k","value":"\#(fits)"}"#) != nil)
        #expect(rejection(#"{"op":"set","key":"k","value":"\#(fits)x"}"#)?.error.code == .valueTooLarge)
    }

    // MARK: delete

    @Test func deleteDecodesKeyAndOptionalIfVersion() {
        #expect(request(#"{"op":"delete","key":"k"}"#)?.operation == .delete(key: "k", ifVersion: nil))
        #expect(request(#"{"op":"delete","key":"k","ifVersion":12}"#)?.operation == .delete(key: "k", ifVersion: 12))
    }

    @Test func deleteWithBadFieldsIsRejected() {
        #expect(rejection(#"{"op":"delete"}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"delete","key":"k","ifVersion":-5}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"delete","key":" "}"#)?.error.code == .invalidKey)
    }

    // MARK: observe and unobserve

    @Test(arguments: ["observe", "unobserve"])
    func observationsTakeAKeyOrAPrefix(_ op: String) {
        func wrap(_ target: Target) -> Operation<JSONValue> {
            op == "observe" ? .observe(target) : .unobserve(target)
        }
        #expect(request(#"{"op":"\#(op)","key":"a.b"}"#)?.operation == wrap(.key("a.b")))
        #expect(request(#"{"op":"\#(op)","prefix":"a."}"#)?.operation == wrap(.prefix("a.")))
        #expect(request(#"{"op":"\#(op)","prefix":""}"#)?.operation == wrap(.prefix("")))
        #expect(request(#"{"op":"\#(op)","key":null,"prefix":"a."}"#)?.operation == wrap(.prefix("a.")))
    }

    @Test(arguments: ["observe", "unobserve"])
    func observationsWithBothOrNeitherAreBadRequests(_ op: String) {
        #expect(
            rejection(#"{"op":"\#(op)","key":"a","prefix":"b"}"#)?.error
                == WireError(code: .badRequest, message: "give only one of the fields \"key\" or \"prefix\", not both"))
        #expect(
            rejection(#"{"op":"\#(op)"}"#)?.error
                == WireError(
                    code: .badRequest, message: "one of the fields \"key\" or \"prefix\" (a string) is required"))
    }

    @Test(arguments: ["observe", "unobserve"])
    func observationsCheckTypesAndKeyRules(_ op: String) {
        #expect(rejection(#"{"op":"\#(op)","key":1}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"\#(op)","prefix":false}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"\#(op)","key":""}"#)?.error.code == .invalidKey)
        #expect(rejection(#"{"op":"\#(op)","prefix":"a b"}"#)?.error.code == .invalidKey)
    }

    // MARK: list and ping

    @Test func listPrefixDefaultsToEmpty() {
        #expect(request(#"{"op":"list"}"#)?.operation == .list(prefix: "", after: nil, limit: nil))
        #expect(
            request(#"{"op":"list","prefix":"kitchen."}"#)?.operation
                == .list(prefix: "kitchen.", after: nil, limit: nil))
        #expect(
            request(#"{"op":"list","prefix":"k.","after":"k.b","limit":2}"#)?.operation
                == .list(prefix: "k.", after: "k.b", limit: 2))
        #expect(rejection(#"{"op":"list","limit":0,"id":1}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"list","limit":"2","id":1}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"list","after":"has space","id":1}"#)?.error.code == .invalidKey)
        #expect(rejection(#"{"op":"hello","name":"","id":1}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"hello","name":"a\u0007b","id":1}"#)?.error.code == .badRequest)
        let longest = String(repeating: "é", count: 64)
        #expect(
            request(#"{"op":"hello","name":"\#(longest)"}"#)?.operation
                == .hello(name: longest, token: nil, protocolVersion: 1))
        #expect(rejection(#"{"op":"hello","name":"\#(longest)x","id":1}"#)?.error.code == .badRequest)
    }

    @Test func listWithABadPrefixIsRejected() {
        #expect(rejection(#"{"op":"list","prefix":7}"#)?.error.code == .badRequest)
        #expect(rejection(#"{"op":"list","prefix":"a\nb"}"#)?.error.code == .invalidKey)
    }

    @Test func pingNeedsNoFields() {
        #expect(request(#"{"id":1,"op":"ping"}"#) == Request<JSONValue>(id: .integer(1), operation: .ping))
    }

    // MARK: rejection replies

    @Test func rejectionsAnswerWithAFailureReply() {
        let rejection = rejection(#"{"id":"q","op":"get"}"#)
        let rejectionText = rejection.map { text($0.reply.encoded()) }
        #expect(
            rejectionText
                == #"{"ok":false,"id":"q","error":{"code":"bad_request","message":"field \"key\" is required (a string)"}}"#
        )
        let echoesNullID = self.rejection("nope").map { $0.reply.id } == .some(nil)
        #expect(echoesNullID)
    }
}
