import ObservatoryWire
import Testing

@Suite struct ErrorCodeTests {
    @Test func everyCodeHasItsProtocolSpelling() {
        let expected: [(ErrorCode, String)] = [
            (.badFrame, "bad_frame"), (.frameTooLarge, "frame_too_large"), (.unknownOperation, "unknown_op"),
            (.badRequest, "bad_request"), (.invalidKey, "invalid_key"), (.valueTooLarge, "value_too_large"),
            (.notFound, "not_found"), (.conflict, "conflict"), (.unauthenticated, "unauthenticated"),
            (.forbidden, "forbidden"), (.limitExceeded, "limit_exceeded"), (.slowConsumer, "slow_consumer"),
            (.shuttingDown, "shutting_down"), (.unavailable, "unavailable"), (.internalError, "internal"),
        ]
        for (code, spelling) in expected {
            #expect(code.rawValue == spelling)
            #expect(code.description == spelling)
        }
        #expect(Set(expected.map(\.0)).count == expected.count)
    }

    @Test func unknownFutureCodesDecodeWithoutLoss() {
        let code = ErrorCode(rawValue: "rate_limited")
        #expect(code.rawValue == "rate_limited")
        #expect(code != .limitExceeded)
        #expect(ErrorCode(rawValue: "conflict") == .conflict)
    }
}
