import Testing

@testable import ObservatoryHTTP

@Suite struct BodyFramingTests {
    /// Every piece `framing` gives from `input`, in order, until it needs more bytes or ends.
    private func pieces(
        _ framing: inout BodyFraming, _ input: String, inputFinished: Bool = false
    ) throws(HTTPError) -> [ChunkedBodyDecoder.Part] {
        var buffer = InputBuffer()
        buffer.append(bytes(input))
        var result: [ChunkedBodyDecoder.Part] = []
        while let part = try framing.next(from: &buffer, inputFinished: inputFinished) {
            result.append(part)
            if part == .end { break }
        }
        return result
    }

    @Test func aDeclaredLengthReadsExactlyThatManyBytes() throws {
        var framing = try BodyFraming.declaredLength(5, limit: 10)
        #expect(try pieces(&framing, "hel") == [.data(bytes("hel"))])
        #expect(try pieces(&framing, "lo, next") == [.data(bytes("lo")), .end])
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeReading() {
        #expect(throws: HTTPError.bodyTooLarge(limit: 10)) { try BodyFraming.declaredLength(11, limit: 10) }
        #expect((try? BodyFraming.declaredLength(11, limit: nil)) != nil)
    }

    @Test func aBodyCutShortByTheCloseFails() {
        var fixed = BodyFraming.fixedLength(remaining: 4)
        #expect(throws: HTTPError.self) { try pieces(&fixed, "", inputFinished: true) }
        var chunked = BodyFraming.chunked(ChunkedBodyState(limits: ChunkedBodyLimits()))
        #expect(throws: HTTPError.self) { try pieces(&chunked, "5\r\nab", inputFinished: true) }
    }

    @Test func aChunkedBodyKeepsItsStateBetweenCalls() throws {
        var framing = BodyFraming.chunked(ChunkedBodyState(limits: ChunkedBodyLimits()))
        #expect(try pieces(&framing, "5\r\nab") == [.data(bytes("ab"))])
        #expect(try pieces(&framing, "c") == [.data(bytes("c"))])
    }

    @Test func aBodyUntilTheCloseEndsWithItAndIsBounded() throws {
        var framing = BodyFraming.untilClose(received: 0, limit: 6)
        #expect(try pieces(&framing, "abc") == [.data(bytes("abc"))])
        #expect(try pieces(&framing, "", inputFinished: true) == [.end])
        var bounded = BodyFraming.untilClose(received: 4, limit: 6)
        #expect(throws: HTTPError.bodyTooLarge(limit: 6)) { try pieces(&bounded, "abc") }
    }
}
