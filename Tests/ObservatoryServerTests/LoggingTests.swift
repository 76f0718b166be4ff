import Foundation
import Testing

@testable import ObservatoryServer

@Suite struct LoggingTests {
    @Test func recordsBelowTheLevelAreDropped() {
        let sink = RecordingLogSink()
        let logger = ServerLogger(level: .info, sink: sink)
        logger.debug("hidden")
        logger.info("shown")
        logger.error("also shown")
        #expect(sink.records.map(\.message) == ["shown", "also shown"])
        #expect(sink.records.map(\.level) == [.info, .error])
    }

    @Test func lineHasUTCTimestampLevelAndMessage() {
        let record = LogRecord(level: .warning, message: "low limit", date: Date(timeIntervalSince1970: 1.25))
        #expect(StandardErrorLogSink.format(record) == "1970-01-01T00:00:01.250Z WARNING low limit\n")
    }
}
