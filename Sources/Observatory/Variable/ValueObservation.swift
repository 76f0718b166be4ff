import Observation

/// What a ``Var`` needs to take part in Swift's Observation framework: a
/// registrar, and the key path of `value` as one object of its own.
///
/// A variable makes it at the first read of `value` and keeps it under its lock.
///
/// ## Why the key path is an object of its own
/// A set must notify the registrar only when someone tracks the value, or
/// every set would pay for the registrar's lock and key-path hashing. The
/// registrar keeps the key path of every tracked property for as long as the
/// tracking is pending or installed (`withObservationTracking` records it at
/// the read and drops it after the change it waited for). So while this
/// object's key path is referenced from anywhere but here, someone may track
/// the value; when it is uniquely referenced, no one does, and a set skips the
/// registrar. A reader's short-lived copy only makes a set take the tracked
/// path once, which is harmless.
@usableFromInline
struct ValueObservation<Subject: Observation.Observable, Member> {
    /// Tells trackers of the value about its changes.
    @usableFromInline let registrar = ObservationRegistrar()
    /// `\Subject.value`, made for this variable alone; see the type's discussion.
    @usableFromInline var keyPath: KeyPath<Subject, Member>

    @usableFromInline
    init(keyPath: KeyPath<Subject, Member>) {
        self.keyPath = keyPath
    }

    /// Whether some tracking may hold the key path, so that a change must be
    /// told to the registrar. `mutating` only to ask about uniqueness.
    @inlinable
    mutating func mayBeTracked() -> Bool {
        !isKnownUniquelyReferenced(&keyPath)
    }
}
