import ObservatoryWire
import Testing

@Suite struct WireErrorTests {
    @Test func factoriesSetTheirCodesAndActionableMessages() {
        #expect(
            WireError.badFrame("x")
                == WireError(code: .badFrame, message: "frame must be one JSON object on one line: x"))
        #expect(
            WireError.frameTooLarge(limit: 1024)
                == WireError(code: .frameTooLarge, message: "frame exceeds the limit of 1024 bytes"))
        #expect(WireError.unknownOperation("zap").code == .unknownOperation)
        #expect(
            WireError.badRequest(field: "key", expected: "a string")
                == WireError(code: .badRequest, message: "field \"key\" must be a string"))
        #expect(WireError.valueTooLarge(size: 9, limit: 8).code == .valueTooLarge)
        #expect(WireError.notFound(key: "k") == WireError(code: .notFound, message: "key \"k\" does not exist"))
    }

    @Test func onlyConflictsCarryACurrentVersion() {
        #expect(WireError.conflict(key: "k", expected: 1, current: 5).currentVersion == 5)
        #expect(WireError.conflict(key: "k", expected: 1, current: 5).code == .conflict)
        #expect(WireError.notFound(key: "k").currentVersion == nil)
    }

    @Test func descriptionShowsCodeMessageAndVersion() {
        #expect(WireError(code: .forbidden, message: "no").description == "forbidden: no")
        #expect(
            WireError(code: .conflict, message: "no", currentVersion: 2).description
                == "conflict: no (current version 2)")
    }
}
