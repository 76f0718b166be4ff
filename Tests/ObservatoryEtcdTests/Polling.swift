import Foundation

/// Polls `condition` every 10 ms until it holds or `timeout` passes, and
/// returns whether it held: for state that another thread or process changes.
func waitUntil(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
