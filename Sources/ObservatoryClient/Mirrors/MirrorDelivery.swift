import Observatory

/// What a mirror does on the client's delivery queue after it took an event:
/// store the value its `Var` is to show (if any) in the run's ``UpdateGroup``,
/// and, once the group delivered, publish its status.
///
/// The client carries out the deliveries of one run of events (a batch) in one
/// block: every mirror stores its value, then the group delivers, so that no
/// observer of any of the mirrors runs before all of them hold the run's values.
struct MirrorDelivery: Sendable {
    /// Stores the value to show in the group, if the mirror's rules still allow it.
    let store: @Sendable (UpdateGroup) -> Void
    /// Runs after the group delivered (the mirror publishes its status).
    let finish: @Sendable () -> Void

    /// A delivery that changes nothing.
    static let nothing = MirrorDelivery(store: { _ in }, finish: {})
}
