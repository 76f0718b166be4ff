import ObservatoryTestSupport
import Testing

@testable import ObservatoryWire

/// `Request<EncodedJSON>` must decode every frame as `Request<JSONValue>` does, except that the
/// values of a `set` and of a batch's sets stay as the bytes that were sent.
@Suite struct EncodedRequestTests {
    /// What the tree decoder says, next to what the bytes decoder says with its value decoded.
    private func outcomes(_ frame: [UInt8], limits: RequestLimits) -> (
        tree: Result<Request<JSONValue>, RequestRejection>, bytes: Result<Request<JSONValue>, RequestRejection>
    ) {
        (
            Request<JSONValue>.decode(frame: frame, limits: limits),
            Request<EncodedJSON>.decode(frame: frame, limits: limits).map(\.decoded)
        )
    }

    static let frames: [String] = [
        // Not requests.
        "not json", "[1,2]", "42", "null", "", "{\"op\":\"ping\"", "{\"op\":\"ping\"} {}", "{}",
        // ids and ops.
        #"{"id":null,"op":"ping"}"#, #"{"id":1.5,"op":"ping"}"#, #"{"id":"a","op":5}"#, #"{"id":7,"op":"fly"}"#,
        #"{"id":7}"#, #"{"op":"ping","id":"x","extra":[1,{"deep":true}]}"#, #"{"op":"ping","extra":[1,]}"#,
        // set: every field, every error, in every order.
        #"{"op":"set","key":"sky.color","value":{"r":255,"g":128,"b":0,"name":"orange"},"id":7}"#,
        #"{"value":[1, 2.0, "\u00e9"],"op":"set","key":"k"}"#, #"{"op":"set","key":"k","value":null}"#,
        #"{"op":"set","key":"k","value":1,"value":{"a":2}}"#, #"{"op":"set","key":"k"}"#,
        #"{"op":"set","value":1}"#, #"{"op":"set","key":"a b","value":1}"#, #"{"op":"set","key":5,"value":1}"#,
        #"{"op":"set","key":"k","value":1,"ifVersion":-1}"#, #"{"op":"set","key":"k","value":1,"ifVersion":2.0}"#,
        #"{"op":"set","key":"k","value":1,"ephemeral":"yes"}"#, #"{"op":"set","key":"k","value":1,"requestId":""}"#,
        #"{"op":"set","key":"k","value":{"a":10},"ifVersion":"x"}"#, #"{"op":"set","key":"k","value":{"a":10}}"#,
        #"{"op":"set","key":"k","value":{ "a" :  1 }}"#, #"{"op":"set","key":"k","value":[1e15,1e15,1e15]}"#,
        #"{"op":"set","key":"k","value":[1,]}"#, #"{"op":"set","key":"k","value":[[[[1]]]]}"#,
        #"{"op":"set","key":"k","value":"\uD800"}"#, #"{"op":"set","key":"k","value":1e400}"#,
        #"{"op":"set","key":"k","value":1,"ifVersion":3,"ephemeral":true,"requestId":"r1"}"#,
        // Other ops keep their rules, and ignore a value.
        #"{"op":"get","key":"k","value":[1,2]}"#, #"{"op":"get","key":"k","value":[1,}"#, #"{"op":"get"}"#,
        #"{"op":"delete","key":"k","ifVersion":1,"requestId":"r"}"#,
        #"{"op":"observe","prefix":"a.","fromRevision":3}"#,
        #"{"op":"observe","key":"a","prefix":"b"}"#, #"{"op":"unobserve","key":"k"}"#,
        #"{"op":"list","prefix":"","after":"a","limit":10}"#, #"{"op":"hello","name":"alice","protocol":1}"#,
        // batch: each set's value as bytes, every error of `ops` and of its elements, in every order.
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":{"x":1}},{"op":"delete","key":"b"},"#
            + #"{"op":"check","key":"c","ifVersion":0}],"requestId":"r"}"#,
        #"{"op":"batch","ops":[ {"op":"set", "key":"a", "value":[1, 2.0, "\u00e9"] } ]}"#,
        #"{"op":"batch"}"#, #"{"op":"batch","ops":null}"#, #"{"op":"batch","ops":{"a":1}}"#,
        #"{"op":"batch","ops":[]}"#,
        #"{"op":"batch","ops":[1]}"#, #"{"op":"batch","ops":[{"op":"fly","key":"a"}]}"#,
        #"{"op":"batch","ops":[{"key":"a","value":1}]}"#, #"{"op":"batch","ops":[{"op":"set","key":"a"}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1},{"op":"set","key":"a","value":2}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":{"a":10},"ttl":0}]}"#,
        #"{"op":"batch","ops":[{"op":"check","key":"a"}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a b","value":1}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1}],"ops":5}"#,
        #"{"op":"batch","ops":5,"ops":[{"op":"set","key":"a","value":1}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":[[[1]]]}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1},]}"#, #"{"op":"batch","ops":[{"op":"set"}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1,"ops":[1]}]}"#,
        #"{"op":"batch","ops":[{"op":"\u0073et","key":"a","value":1}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1,"ifVersion":2.0,"ephemeral":true,"ttl":30}],"requestId":""}"#,
    ]

    @Test func aBatchKeepsEachSetsValueAsTheBytesThatWereSent() throws {
        let frame = #"{"op":"batch","ops":[{"op":"set","key":"a","value":{ "n" : 1.0 }},{"op":"delete","key":"b"}]}"#
        let request = try Request<EncodedJSON>.decode(frame: Array(frame.utf8)).get()
        guard case .batch(let operations, nil) = request.operation, case .set(_, let value, _, _, _)? = operations.first
        else {
            Issue.record("not a batch with a set first: \(request)")
            return
        }
        #expect(value.bytes == Array(#"{ "n" : 1.0 }"#.utf8))
        #expect(operations.last == .delete(key: "b"))
    }

    static let limits: [RequestLimits] = [
        .default, RequestLimits(maxValueBytes: 7), RequestLimits(maxValueBytes: 50), RequestLimits(maxDepth: 3),
    ]

    @Test(arguments: frames, limits)
    func bothDecodersAgreeOnEveryFrame(_ frame: String, _ limits: RequestLimits) {
        let (tree, bytes) = outcomes(Array(frame.utf8), limits: limits)
        #expect(bytes == tree)
    }

    @Test func randomSetFramesAndTheirMutationsAreDecodedAlike() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let value = RandomJSON.text(using: &generator)
            let extra = Bool.random(using: &generator) ? #","ifVersion":1"# : #","id":"x""#
            var frame = Array(#"{"op":"set","key":"k","value":\#(value)\#(extra)}"#.utf8)
            if Bool.random(using: &generator) {
                RandomJSON.mutate(&frame, using: &generator)
            }
            let limits = RequestLimits(
                maxValueBytes: Int.random(in: 1...64, using: &generator),
                maxDepth: Int.random(in: 1...6, using: &generator))
            let (tree, bytes) = outcomes(frame, limits: limits)
            #expect(bytes == tree, "\(text(frame))")
        }
    }

    @Test func aSetValueIsKeptAsTheBytesThatWereSent() throws {
        let frame = #"{"op":"set","key":"k","value": {"b" : 1.0, "a":"\u00e9"} ,"ifVersion":2}"#
        let request = try Request<EncodedJSON>.decode(frame: Array(frame.utf8)).get()
        guard case .set(let key, let value, let ifVersion, let sessionBound, let requestId, _) = request.operation
        else {
            Issue.record("not a set: \(request)")
            return
        }
        #expect(key == "k")
        #expect(text(value.bytes) == #"{"b" : 1.0, "a":"\u00e9"}"#)
        #expect(ifVersion == 2)
        #expect(!sessionBound)
        #expect(requestId == nil)
    }

    @Test func aRepeatedValueKeepsItsLastBytes() throws {
        let request = try Request<EncodedJSON>.decode(
            frame: Array(#"{"op":"set","key":"k","value":1,"value":[2]}"#.utf8)
        ).get()
        guard case .set(_, let value, _, _, _, _) = request.operation else {
            Issue.record("not a set: \(request)")
            return
        }
        #expect(text(value.bytes) == "[2]")
    }

    @Test func otherOperationsComeAsTheirOperation() throws {
        let request = try Request<EncodedJSON>.decode(frame: Array(#"{"id":3,"op":"get","key":"k"}"#.utf8)).get()
        #expect(request == Request<EncodedJSON>(id: .integer(3), operation: .get(key: "k")))
        #expect(request.operation.kind == .get)
    }

    @Test(arguments: frames)
    func aDecodedRequestKnowsTheKindOfItsOperation(_ frame: String) {
        if case .success(let request) = Request<EncodedJSON>.decode(frame: Array(frame.utf8)) {
            #expect(request.kind == request.operation.kind)
        }
        if case .success(let request) = Request<JSONValue>.decode(frame: Array(frame.utf8)) {
            #expect(request.kind == request.operation.kind)
        }
    }

    @Test func aRequestsKindFollowsItsOperation() {
        var request = Request<JSONValue>(id: nil, operation: .ping)
        #expect(request.kind == .ping)
        request.operation = .get(key: "k")
        #expect(request.kind == .get)
    }

    @Test(arguments: frames)
    func aFrameInABufferDecodesAsTheSameFrameInAnArray(_ frame: String) {
        let bytes = Array(frame.utf8)
        let fromArray = Request<EncodedJSON>.decode(frame: bytes, limits: RequestLimits(maxValueBytes: 7))
        let fromBuffer = bytes.withUnsafeBufferPointer { buffer in
            Request<EncodedJSON>.decode(frame: buffer, limits: RequestLimits(maxValueBytes: 7))
        }
        #expect(fromBuffer == fromArray)
    }

    @Test func aKeyOfPlainBytesIsStillHeldToItsLength() {
        let longest = String(repeating: "k", count: KeyRules.maxBytes)
        let accepted = Request<EncodedJSON>.decode(frame: Array(#"{"op":"set","key":"\#(longest)","value":1}"#.utf8))
        #expect((try? accepted.get()) != nil)
        let rejected = Request<EncodedJSON>.decode(frame: Array(#"{"op":"set","key":"\#(longest)k","value":1}"#.utf8))
        #expect((try? rejected.get()) == nil)
        guard case .failure(let rejection) = rejected else { return }
        #expect(rejection.error.code == .invalidKey)
    }

    @Test func theValueLimitCountsTheCompactEncodingAsTheTreeDecoderDoes() {
        let limits = RequestLimits(maxValueBytes: 7)
        let spaced = Request<EncodedJSON>.decode(
            frame: Array(#"{"op":"set","key":"k","value":{ "a" :  1 }}"#.utf8), limits: limits)
        #expect((try? spaced.get()) != nil)
        let large = Request<EncodedJSON>.decode(
            frame: Array(#"{"id":9,"op":"set","key":"k","value":{"a":10}}"#.utf8), limits: limits)
        #expect(large == .failure(RequestRejection(id: .integer(9), error: .valueTooLarge(size: 8, limit: 7))))
    }
}
