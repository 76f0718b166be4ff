import Dispatch
import ObservatoryLocking

/// The one timer of a revision gate whose waiters have deadlines (a cluster
/// node's write replies): it fires at the gate's next deadline, expires the
/// waiters whose deadline passed (`RevisionGate.expire(at:)`), runs them, and
/// sets itself for the next deadline. However many waits are in flight, a gate
/// has one timer, not one per wait.
///
/// ## Locking
/// One `Locked` box holds the Dispatch timer source and the deadline it is set
/// for; it is held only to read or set them (setting a timer source does not
/// block), never while the gate is asked or a waiter runs. The timer's handler
/// runs on its own serial queue.
final class RevisionGateTimer: Sendable {
    private struct State {
        let source: any DispatchSourceTimer
        /// When the source fires next; nil when it is not set.
        var armed: ContinuousClock.Instant?
    }

    private let gate: RevisionGate
    private let state: Locked<State>

    /// A timer for `gate`, not set until `arm(for:)`; its handler runs on a queue named `label`.
    init(gate: RevisionGate, label: String) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        self.gate = gate
        state = Locked(State(source: source, armed: nil))
        source.setEventHandler { [weak self] in self?.fire() }
        source.activate()
    }

    deinit {
        state.withLock { $0.source.cancel() }
    }

    /// Makes the timer fire no later than `deadline`: call it after a wait with that deadline began.
    func arm(for deadline: ContinuousClock.Instant) {
        state.withLock { state in
            if let armed = state.armed, armed <= deadline { return }
            state.armed = deadline
            state.source.schedule(deadline: Self.dispatchTime(of: deadline))
        }
    }

    /// Expires the waiters whose deadline passed, runs them, and sets the timer for the next deadline.
    private func fire() {
        state.withLock { $0.armed = nil }
        let (wakeup, next) = gate.expire(at: .now)
        wakeup.run()
        // Fired a little early, or a wait came meanwhile: the next deadline, which may be the same.
        if let next { arm(for: next) }
    }

    /// `instant` on Dispatch's clock: as far from Dispatch's now as it is from the continuous clock's.
    private static func dispatchTime(of instant: ContinuousClock.Instant) -> DispatchTime {
        let (seconds, attoseconds) = (instant - .now).components
        guard seconds >= 0 else { return .now() }
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .distantFuture }
        return .now() + .nanoseconds(Int(nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
