import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The server's counters: each request counted under its own op.
@Suite struct ServerMetricsTests {
    @Test func eachOpHasItsOwnPlaceInAllCasesOrder() {
        let places = OperationKind.allCases.map { ServerMetrics.requestIndex($0) }
        #expect(places == Array(OperationKind.allCases.indices))
    }
}
