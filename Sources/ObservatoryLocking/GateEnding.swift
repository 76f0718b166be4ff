/// How a wait on a gate (``GateMachine``) ended: every waiter is told exactly one of these, once.
///
/// `Loss` is what a lost value carries (the server's gate: the error the
/// writer of a lost revision receives); a gate that loses nothing uses `Never`.
package enum GateEnding<Loss> {
    /// The counter reached the value waited for.
    case reached
    /// The value waited for will never be reached, for the reason given.
    case lost(Loss)
    /// The waiter's deadline passed first.
    case timedOut
    /// The gate closed first: nothing will be reached any more.
    case closed
}

extension GateEnding: Sendable where Loss: Sendable {}

extension GateEnding: Equatable where Loss: Equatable {}
