import Dispatch

// The test kit's one polling helper, for a condition that has no event to wait
// on (a state another thread or a spawned process changes): a blocking form for
// synchronous tests and an async form for async ones, over one deadline rule.

/// A condition that did not hold within its time limit.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let description: String
}

/// How often a condition is checked again: a polling interval, not a wait for
/// something.
private let pollingInterval = Duration.milliseconds(1)

/// Blocks until `condition` holds, checking it every millisecond, for at most
/// `timeout`.
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
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
    }
}

/// Suspends until `condition` holds, checking it every millisecond, for at most
/// `timeout`; returns whether it held.
public func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: pollingInterval)
    }
    return true
}
