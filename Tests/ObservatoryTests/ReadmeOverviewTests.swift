import Observatory
import Testing

// The README's overview of the core library, as code that compiles and
// asserts what its comments say; the guide's examples are in ReadmeTourTests.

private final class Dashboard: Observer, Sendable {
    let receiver = Receiver()
}

@Suite struct ReadmeOverviewTests {
    @Test func aWarmTemperatureReachesTheDashboardThroughTheChain() {
        let printed = Locked<[String]>([])
        let temperature = Var(21.5)
        let dashboard = Dashboard()
        dashboard.observe(temperature).new().filter { $0 > 25 }.receive { warm in
            printed.withLock { $0.append("too warm: \(warm)") }
        }
        temperature <- 24
        temperature <- 26
        #expect(printed.withLock { $0 } == ["too warm: 26.0"])
    }
}
