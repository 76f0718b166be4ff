import ObservatoryLocking
import ObservatoryWire

/// The rules of the revision gate: the project's one gate (`GateMachine`) over
/// revisions, whose waiters are closures told how their wait ended, and whose
/// lost revisions carry the error their writers receive.
///
/// Inputs are the revision advancing (storage wrote or synced it, per the fsync
/// policy that `DurabilityMachine` applies; a cluster node's watch applied it),
/// revisions being lost, a wait being requested (a cluster node's write reply
/// waits until a deadline), the deadline passing, and the gate closing. Each
/// returns the waiters to wake, which `RevisionGate` runs after releasing the
/// lock that guards the machine.
typealias RevisionGateMachine = GateMachine<@Sendable (RevisionGate.Ending) -> Void, WireError>
