import Testing

@testable import ObservatoryServer

@Suite struct PrometheusTextTests {
    @Test func aCounterHasHelpTypeAndItsSample() {
        var page = PrometheusText()
        page.counter("observatory_changes_total", help: "Changes made.", value: 12)
        #expect(
            page.text
                == "# HELP observatory_changes_total Changes made.\n# TYPE observatory_changes_total counter\n"
                + "observatory_changes_total 12\n")
    }

    @Test func labelledSamplesKeepTheirOrder() {
        var page = PrometheusText()
        page.gauge(
            "observatory_connections", help: "Open connections.",
            samples: [(["transport": "tcp"], 3), (["transport": "websocket"], 1)])
        let lines = page.text.split(separator: "\n")
        #expect(
            lines.suffix(2) == [
                "observatory_connections{transport=\"tcp\"} 3", "observatory_connections{transport=\"websocket\"} 1",
            ])
    }

    @Test func labelValuesCannotBreakALineOrForgeASample() {
        var page = PrometheusText()
        page.counter("x_total", help: "a\\b\nc", samples: [(["code": "a\"b\\c\nd"], 1)])
        #expect(page.text.contains("# HELP x_total a\\\\b\\nc\n"))
        #expect(page.text.contains("x_total{code=\"a\\\"b\\\\c\\nd\"} 1\n"))
        #expect(page.text.split(separator: "\n").count == 3)
    }

    @Test func numbersAreSpelledAsTheFormatAsks() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(0.25) == "0.25")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
    }

    @Test func aHistogramIsCumulativeAndEndsWithInfinity() {
        let histogram = Histogram(bounds: [0.01, 0.1, 1])
        for value in [0.005, 0.05, 0.05, 0.5, 5] { histogram.observe(value) }
        var page = PrometheusText()
        page.histogram("observatory_fsync_duration_seconds", help: "Fsync durations.", snapshot: histogram.snapshot)
        let samples = page.text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            samples == [
                "observatory_fsync_duration_seconds_bucket{le=\"0.01\"} 1",
                "observatory_fsync_duration_seconds_bucket{le=\"0.1\"} 3",
                "observatory_fsync_duration_seconds_bucket{le=\"1\"} 4",
                "observatory_fsync_duration_seconds_bucket{le=\"+Inf\"} 5",
                "observatory_fsync_duration_seconds_sum 5.605",
                "observatory_fsync_duration_seconds_count 5",
            ])
    }

    @Test func anObservationOnABoundCountsInThatBucket() {
        let histogram = Histogram(bounds: [1, 2])
        histogram.observe(1)
        histogram.observe(2.5)
        #expect(histogram.snapshot.counts == [1, 0])
        #expect(histogram.snapshot.count == 2)
    }
}
