import Foundation
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer

/// `/metrics` against a real server: the names docs/protocol.md requires, counts that
/// move with what clients do, and lines of Prometheus's text format 0.0.4.
@Suite struct MetricsEndToEndTests {
    /// The samples of a page by name with labels (`name{label="value"}`), checking
    /// every line against the format on the way.
    private func samples(_ page: String) throws -> [String: Double] {
        let line = try Regex(
            #"^(observatory_[a-z_]+(\{[a-z]+="[a-z_+.0-9A-Z]*"(,[a-z]+="[a-z_+.0-9A-Z]*")*\})?) (-?[0-9.e+]+|\+Inf|NaN)$"#
        )
        var found: [String: Double] = [:]
        for text in page.split(separator: "\n") where !text.hasPrefix("# HELP ") && !text.hasPrefix("# TYPE ") {
            guard let match = try line.wholeMatch(in: String(text)),
                let name = match.output[1].substring, let value = match.output[4].substring
            else {
                throw TestFailure(description: "not a sample line: \(text)")
            }
            found[String(name)] = Double(value)
        }
        return found
    }

    @Test func metricsNameEveryRequiredFamilyAndCountWhatClientsDo() throws {
        let server = try TestServer()
        let line = try server.client()
        _ = try line.request(#"{"op":"hello","name":"secret-name"}"#)
        _ = try line.request(#"{"op":"observe","prefix":"m."}"#)
        _ = try line.request(#"{"op":"set","key":"m.secret-key","value":1}"#)
        _ = try line.next()
        _ = try line.request(#"{"op":"get","key":"m.none"}"#)
        let web = try WebClient(port: server.port)
        let response = try web.request("GET", "/metrics")
        #expect(response.head.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        let page = response.text
        #expect(!page.contains("secret"))
        let values = try samples(page)
        #expect(values[#"observatory_connections{transport="tcp"}"#] == 1)
        #expect(values[#"observatory_connections{transport="http"}"#] == 1)
        #expect(values[#"observatory_connections{transport="websocket"}"#] == 0)
        #expect(values[#"observatory_connections{transport="sse"}"#] == 0)
        #expect(values[#"observatory_requests_total{op="set"}"#] == 1)
        #expect(values[#"observatory_errors_total{code="not_found"}"#] == 1)
        #expect(values["observatory_changes_total"] == 1)
        #expect(values["observatory_events_sent_total"] == 1)
        #expect(values["observatory_keys"] == 1)
        #expect(values["observatory_revision"] == 1)
        #expect((values["observatory_store_bytes"] ?? 0) > 0, "the one key's bytes")
        for name in [
            "observatory_queued_bytes", "observatory_slow_consumer_closes_total", "observatory_store_bytes",
            "observatory_history_bytes", "observatory_log_bytes",
            #"observatory_resumes_total{outcome="replayed"}"#, #"observatory_resumes_total{outcome="reset"}"#,
            #"observatory_fsync_duration_seconds_bucket{le="+Inf"}"#, "observatory_fsync_duration_seconds_count",
        ] {
            #expect(values[name] != nil, "\(name)")
        }
    }
}
