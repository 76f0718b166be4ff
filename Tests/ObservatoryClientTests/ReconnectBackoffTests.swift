import Testing

@testable import ObservatoryClient

@Suite struct ReconnectBackoffTests {
    let backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(2), multiplier: 2, jitter: 0.5)

    @Test func delayDoublesWithEveryAttemptWithoutJitter() {
        let delays = (0..<4).map { backoff.delay(forAttempt: $0, random: { 0 }) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)])
    }

    @Test func delayIsCappedAtTheMaximum() {
        #expect(backoff.delay(forAttempt: 5, random: { 0 }) == .seconds(2))
        #expect(backoff.delay(forAttempt: 10_000, random: { 0 }) == .seconds(2))
    }

    @Test func jitterTakesAtMostItsFractionOffTheDelay() {
        #expect(backoff.delay(forAttempt: 1, random: { 0.999_999 }) > .milliseconds(100))
        #expect(backoff.delay(forAttempt: 1, random: { 1 }) == .milliseconds(100))
        #expect(backoff.delay(forAttempt: 1, random: { 0.5 }) == .milliseconds(150))
    }

    @Test func randomValuesOutsideTheUnitRangeAreClamped() {
        #expect(backoff.delay(forAttempt: 0, random: { -3 }) == .milliseconds(100))
        #expect(backoff.delay(forAttempt: 0, random: { 7 }) == .milliseconds(50))
    }

    @Test func multiplierBelowOneNeverShrinksTheDelay() {
        let flat = ReconnectBackoff(initial: .milliseconds(300), maximum: .seconds(1), multiplier: 0.1, jitter: 0)
        #expect(flat.delay(forAttempt: 6, random: { 0.7 }) == .milliseconds(300))
    }

    @Test func negativeAttemptCountsAsTheFirst() {
        #expect(backoff.delay(forAttempt: -4, random: { 0 }) == .milliseconds(100))
    }
}
