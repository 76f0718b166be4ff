import ObservatoryWire
import Testing

@Suite struct BatchWireTests {
    private func decode(_ frame: String, limits: RequestLimits = .default) -> Result<
        Request<JSONValue>, RequestRejection
    > {
        Request<JSONValue>.decode(frame: Array(frame.utf8), limits: limits)
    }

    /// The error a frame is rejected with; nil (and an issue) when it is accepted.
    private func error(
        _ frame: String, limits: RequestLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) -> WireError? {
        switch decode(frame, limits: limits) {
        case .success(let request):
            Issue.record("accepted: \(request)", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            return rejection.error
        }
    }

    /// The reply as the client receives it.
    private func received(_ reply: Reply) throws -> ReceivedReply {
        guard case .reply(let received) = try ServerMessage.decode(frame: reply.encoded()) else {
            throw WireError(code: .badFrame, message: "not a reply")
        }
        return received
    }

    /// A batch frame with these ops (JSON text of the array's elements).
    private func batch(_ ops: String...) -> String {
        #"{"op":"batch","id":9,"ops":["# + ops.joined(separator: ",") + "]}"
    }

    @Test func aBatchDecodesItsOperationsInOrder() throws {
        let frame =
            #"{"op":"batch","id":9,"requestId":"r1","ops":[{"op":"check","key":"lock","ifVersion":41},"#
            + #"{"op":"set","key":"job","value":{"s":"printing"},"ifVersion":0,"ephemeral":true,"ttl":30},"#
            + #"{"op":"delete","key":"queue","ifVersion":40},{"op":"delete","key":"old"}]}"#
        let request = try decode(frame).get()
        #expect(request.id == .integer(9))
        #expect(
            request.operation
                == .batch(
                    operations: [
                        .check(key: "lock", ifVersion: 41),
                        .set(key: "job", value: ["s": "printing"], ifVersion: 0, sessionBound: true, ttl: 30),
                        .delete(key: "queue", ifVersion: 40),
                        .delete(key: "old"),
                    ],
                    requestId: "r1"))
    }

    @Test func aBatchEncodesToTheShapeItDecodesFrom() throws {
        let request = Request<JSONValue>(
            id: .integer(4),
            operation: .batch(
                operations: [
                    .set(key: "a", value: 1),
                    .set(key: "b", value: "x", ifVersion: 3, sessionBound: true, ttl: 10),
                    .delete(key: "c", ifVersion: 2),
                    .check(key: "d", ifVersion: 0),
                ],
                requestId: "id-1"))
        let expected =
            #"{"id":4,"op":"batch","ops":[{"op":"set","key":"a","value":1},"#
            + #"{"op":"set","key":"b","value":"x","ifVersion":3,"ephemeral":true,"ttl":10},"#
            + #"{"op":"delete","key":"c","ifVersion":2},{"op":"check","key":"d","ifVersion":0}],"requestId":"id-1"}"#
        #expect(String(decoding: request.encoded(), as: UTF8.self) == expected)
        #expect(try Request<JSONValue>.decode(frame: request.encoded()).get() == request)
        #expect(try Request<EncodedJSON>.decode(frame: request.encoded()).get().decoded == request)
    }

    @Test func aBatchNeedsAtLeastOneOperation() {
        let error = error(#"{"op":"batch","ops":[]}"#)
        #expect(error?.code == .badRequest)
        #expect(error?.index == nil)
    }

    @Test func aBatchHoldsAtMost128Operations() throws {
        let ops = (0...128).map { #"{"op":"set","key":"k\#($0)","value":1}"# }
        #expect(error(#"{"op":"batch","ops":["# + ops.joined(separator: ",") + "]}")?.code == .badRequest)
        let atLimit = #"{"op":"batch","ops":["# + ops.dropLast().joined(separator: ",") + "]}"
        guard case .batch(let operations, _) = try decode(atLimit).get().operation else {
            Issue.record("not a batch")
            return
        }
        #expect(operations.count == BatchOperation<JSONValue>.maxCount)
    }

    @Test(arguments: [#"{"op":"batch"}"#, #"{"op":"batch","ops":{}}"#, #"{"op":"batch","ops":"set"}"#])
    func opsThatAreNoArrayAreBadRequests(_ frame: String) {
        #expect(error(frame)?.code == .badRequest)
    }

    @Test func aKeyMayAppearOnlyOnceInABatch() {
        let error = error(
            batch(
                #"{"op":"set","key":"a","value":1}"#, #"{"op":"check","key":"b","ifVersion":1}"#,
                #"{"op":"delete","key":"a"}"#))
        #expect(error?.code == .badRequest)
        #expect(error?.index == 2)
        #expect(error?.message.contains("more than once") == true)
    }

    @Test(arguments: [#"{"op":"get","key":"b"}"#, #"{"op":"batch","ops":[]}"#, #"{"key":"b"}"#, "7"])
    func anUnknownOrMissingOperationIsABadRequestWithItsIndex(_ op: String) {
        let error = error(batch(#"{"op":"set","key":"a","value":1}"#, op))
        #expect(error?.code == .badRequest)
        #expect(error?.index == 1)
    }

    @Test func aCheckWithoutIfVersionIsABadRequest() {
        let error = error(batch(#"{"op":"check","key":"a"}"#))
        #expect(error?.code == .badRequest)
        #expect(error?.index == 0)
        #expect(error?.message.contains("ifVersion") == true)
    }

    @Test func aSetWithoutValueIsABadRequest() {
        #expect(error(batch(#"{"op":"set","key":"a"}"#))?.code == .badRequest)
    }

    @Test(arguments: ["0", "-1", "1.5", "31536001", "\"30\"", "true"])
    func aTTLThatIsNoWholeNumberInRangeIsABadRequest(_ ttl: String) {
        let error = error(batch(#"{"op":"set","key":"a","value":1,"ttl":\#(ttl)}"#))
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains("ttl") == true)
    }

    @Test(arguments: [("1", Int64(1)), ("31536000", 31_536_000), ("30.0", 30)])
    func aTTLInRangeIsKept(_ ttl: String, _ seconds: Int64) throws {
        let request = try decode(batch(#"{"op":"set","key":"a","value":1,"ttl":\#(ttl)}"#)).get()
        #expect(request.operation == .batch(operations: [.set(key: "a", value: 1, ttl: seconds)], requestId: nil))
    }

    @Test func aRequestIdInsideAnOperationIsIgnored() throws {
        let request = try decode(batch(#"{"op":"set","key":"a","value":1,"requestId":"inner"}"#)).get()
        #expect(request.operation == .batch(operations: [.set(key: "a", value: 1)], requestId: nil))
    }

    @Test func anInvalidKeyIsReportedWithItsIndex() {
        let error = error(batch(#"{"op":"set","key":"a","value":1}"#, #"{"op":"delete","key":"has space"}"#))
        #expect(error?.code == .invalidKey)
        #expect(error?.index == 1)
    }

    @Test func aValueTooLargeIsReportedWithItsIndex() {
        var limits = RequestLimits.default
        limits.maxValueBytes = 16
        let error = error(
            batch(
                #"{"op":"set","key":"a","value":1}"#,
                #"{"op":"set","key":"b","value":"\#(String(repeating: "x", count: 40))"}"#),
            limits: limits)
        #expect(error?.code == .valueTooLarge)
        #expect(error?.index == 1)
    }

    @Test func aBatchRequestIdFollowsTheRulesOfASetsOne() {
        let long = String(repeating: "r", count: 129)
        #expect(
            error(#"{"op":"batch","requestId":"\#(long)","ops":[{"op":"delete","key":"a"}]}"#)?.code == .badRequest)
    }

    @Test func theReplyCarriesTheRevisionAndOneResultPerOperation() throws {
        let reply = Reply.success(
            id: .integer(9),
            .batch(
                revision: 42,
                results: [
                    BatchResult(key: "lock", version: 41), BatchResult(key: "job", version: 42, changed: true),
                    BatchResult(key: "same", version: 7, changed: false),
                ]))
        let line = String(decoding: reply.encoded(), as: UTF8.self)
        #expect(
            line
                == #"{"ok":true,"id":9,"revision":42,"results":[{"key":"lock","version":41},"#
                + #"{"key":"job","version":42,"changed":true},{"key":"same","version":7,"changed":false}]}"#)
        #expect(try received(reply).reply(for: .batch) == reply)
    }

    @Test func aDuplicateReplySaysSo() throws {
        let reply = Reply.success(id: nil, .batch(revision: 3, results: [], duplicate: true))
        let line = String(decoding: reply.encoded(), as: UTF8.self)
        #expect(line == #"{"ok":true,"id":null,"revision":3,"results":[],"duplicate":true}"#)
        #expect(try received(reply).reply(for: .batch) == reply)
    }

    @Test func aFailedOperationsIndexTravelsInTheError() throws {
        let error = WireError.conflict(key: "lock", expected: 41, current: 43).at(index: 2)
        let reply = Reply.failure(id: .integer(1), error)
        let line = String(decoding: reply.encoded(), as: UTF8.self)
        #expect(line.hasSuffix(#""version":43,"index":2}}"#))
        #expect(try received(reply).reply(for: .batch) == reply)
    }
}
