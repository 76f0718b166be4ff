import Observatory
import Testing

@testable import ObservatoryClient

@Suite struct ClientLoggerTests {
    final class Lines: Sendable {
        let lines = Locked<[String]>([])
    }

    @Test func linesBelowTheMinimumLevelAreDropped() {
        let collected = Lines()
        let logger = ClientLogger(minimumLevel: .info) { level, message in
            collected.lines.withLock { $0.append("\(level): \(message)") }
        }
        logger.log(.debug, "hidden")
        logger.log(.info, "connected")
        logger.log(.warning, "odd value")
        let collectedLinesInOrder = collected.lines.withLock { $0 } == ["info: connected", "warning: odd value"]
        #expect(collectedLinesInOrder)
    }

    @Test func droppedLinesAreNeverBuilt() {
        let built = Lines()
        let logger = ClientLogger(minimumLevel: .error) { _, _ in }
        logger.log(
            .debug,
            {
                built.lines.withLock { $0.append("built") }
                return "expensive"
            }())
        let nothingCollected = built.lines.withLock { $0.isEmpty }
        #expect(nothingCollected)
    }
}
