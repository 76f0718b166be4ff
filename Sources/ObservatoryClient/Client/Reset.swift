/// The author of the updates a reset brings: after a reconnect, the server could
/// not replay the changes the client missed (it runs another epoch, having lost
/// its history, or more changes happened than its history window holds), so the
/// mirrors took fresh snapshots instead.
///
/// Observers can tell such updates from changes made by an `Author`:
///
///     observer.observe(variable) { update, author in
///         if let reset = author as? Reset { print("resynchronized: \(reset.reason)") }
///     }
public final class Reset: Sendable, CustomStringConvertible {
    /// Why the client could not resume, for logs.
    public let reason: String

    init(reason: String) {
        self.reason = reason
    }

    /// `reset (reason)`.
    public var description: String { "reset (\(reason))" }
}
