import Dispatch

/// A condition that did not hold within its time limit.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let description: String
}

/// Blocks until `condition` holds, checking it every millisecond, for at most
/// `timeout`: for tests without an event to wait on, such as a state another
/// thread or a spawned process changes.
///
/// - Throws: `ConditionTimedOut` when the time is up, or what `condition` throws.
public func waitUntil(
    _ what: String = "condition", timeout: Duration = .seconds(20), _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            throw ConditionTimedOut(description: "\(what) not met within \(timeout)")
        }
        // A polling interval, not a wait for something: the condition is checked again.
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
    }
}
