import Foundation
import Observatory
import ObservatoryLogging
import Testing

@Suite struct LoggerTests {
    @Test func recordsBelowTheLevelAreDropped() {
        let sink = RecordingLogSink()
        let logger = Logger(level: .info, sink: sink)
        logger.debug("hidden")
        logger.info("shown")
        logger.error("also shown")
        #expect(sink.records.map(\.message) == ["shown", "also shown"])
        #expect(sink.records.map(\.level) == [.info, .error])
    }

    @Test func aClosureReceivesEveryRecordAtOrAboveTheLevel() {
        let collected = Locked<[String]>([])
        let logger = Logger(level: .info) { record in
            collected.withLock { $0.append("\(record.level.rawValue): \(record.message)") }
        }
        logger.log(.debug, "hidden")
        logger.log(.info, "connected")
        logger.log(.warning, "odd value")
        #expect(collected.withLock { $0 } == ["info: connected", "warning: odd value"])
    }

    @Test func droppedLinesAreNeverBuilt() {
        let built = Locked(false)
        let logger = Logger(level: .error) { _ in }
        logger.log(
            .debug,
            {
                built.withLock { $0 = true }
                return "expensive"
            }())
        #expect(built.withLock { $0 } == false)
    }

    @Test func theSilentLoggerBuildsNoLineBelowError() {
        let built = Locked(false)
        Logger.silent.debug(
            {
                built.withLock { $0 = true }
                return "expensive"
            }())
        #expect(Logger.silent.level == .error)
        #expect(built.withLock { $0 } == false)
    }

    @Test func lineHasUTCTimestampLevelAndMessage() {
        let record = LogRecord(level: .warning, message: "low limit", date: Date(timeIntervalSince1970: 1.25))
        #expect(StandardErrorLogSink.format(record) == "1970-01-01T00:00:01.250Z WARNING low limit\n")
    }
}
