import Observation

/// The registrar through which a ``Var`` takes part in Swift's Observation
/// framework, made at the first read of its `value`.
///
/// A class, so that a variable's storage holds one pointer to it: the
/// registrar's own layout is known only at run time.
///
/// ## When a set skips the registrar
/// A set must tell the registrar of a change only when someone tracks the
/// value, or every set would pay for the registrar's lock and key-path
/// hashing. The variable makes the key path of `value` as an object of its
/// own, `Var.Storage.keyPath`, and passes that object to the registrar. The
/// registrar keeps the key path of every tracked property for as long as the
/// tracking is pending or installed (`withObservationTracking` records it at
/// the read and drops it after the change it waited for). So while the key
/// path is referenced from anywhere but the variable's storage, someone may
/// track the value; while it is uniquely referenced, no one does, and a set
/// skips the registrar. A reader's short-lived copy only makes a set take the
/// tracked path once, which is harmless.
@usableFromInline
final class ValueObservation: Sendable {
    /// Tells trackers of the value about its changes.
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline
    init() {}
}
