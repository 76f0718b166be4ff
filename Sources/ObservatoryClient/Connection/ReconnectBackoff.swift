import Foundation

/// How long the client waits before each reconnect attempt: capped exponential
/// backoff with jitter.
///
/// The delay before attempt `n` (counted from 0) is drawn uniformly from
/// `[base·(1 − jitter), base]`, where `base = min(maximum, initial · multiplier^n)`.
/// Exponential growth keeps a dead server from being hammered; the cap keeps
/// the client responsive once it comes back; the jitter spreads out the
/// reconnects of many clients that lost the same server at the same moment.
///
///     let backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(5))
///     backoff.delay(forAttempt: 3)   // between 0.4 s and 0.8 s with the default jitter
public struct ReconnectBackoff: Sendable, Equatable {
    /// The delay before the first reconnect attempt, before jitter.
    public var initial: Duration
    /// The longest delay, however many attempts have failed.
    public var maximum: Duration
    /// The factor by which the delay grows with every failed attempt (at least 1).
    public var multiplier: Double
    /// The fraction of the delay that is random, from 0 (none) to 1 (all of it).
    public var jitter: Double

    /// Creates a backoff policy.
    ///
    /// - Parameters:
    ///   - initial: The delay before the first attempt, before jitter.
    ///   - maximum: The cap on every delay.
    ///   - multiplier: The growth factor per failed attempt; values below 1 count as 1.
    ///   - jitter: The random fraction of each delay, clamped to 0...1.
    public init(
        initial: Duration = .milliseconds(100),
        maximum: Duration = .seconds(10),
        multiplier: Double = 2,
        jitter: Double = 0.5
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before reconnect attempt `attempt` (0 for the first).
    ///
    /// - Parameters:
    ///   - attempt: How many attempts have failed since the last connection.
    ///   - random: A source of numbers in `0..<1`; inject a fixed one in tests.
    public func delay(forAttempt attempt: Int, random: () -> Double = { Double.random(in: 0..<1) }) -> Duration {
        let base = baseDelay(forAttempt: attempt)
        let clampedJitter = min(max(jitter, 0), 1)
        let randomFraction = min(max(random(), 0), 1)
        let seconds = base * (1 - clampedJitter * randomFraction)
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// The delay before jitter, in seconds: exponential growth, capped.
    private func baseDelay(forAttempt attempt: Int) -> Double {
        let initialSeconds = initial.seconds
        let maximumSeconds = max(maximum.seconds, 0)
        let growth = pow(max(multiplier, 1), Double(max(attempt, 0)))
        let uncapped = initialSeconds * growth
        guard uncapped.isFinite else { return maximumSeconds }
        return min(max(uncapped, 0), maximumSeconds)
    }
}

extension Duration {
    /// The duration as a number of seconds, for arithmetic with doubles.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
