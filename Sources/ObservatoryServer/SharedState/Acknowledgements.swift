import ObservatoryWire

/// What a connection needs to know about durability: how far replies to writes
/// and events may go, which writes lost their change, and when to try again.
///
/// Implemented by `Storage` (acknowledged per its fsync policy), by
/// `ImmediateAcknowledgements` for state kept in memory only, and, later, by
/// state that commits elsewhere (cluster mode): a reply waits for its revision to
/// be acknowledged however the shared state decides that.
protocol Acknowledgements: AnyObject, Sendable {
    /// The revision up to which replies to writes and events may go out.
    var acknowledged: AcknowledgedRevision { get }

    /// Whether the change at `revision` will never be acknowledged: its writer is
    /// answered with `lostChangeError()` instead of its reply.
    func isLost(_ revision: Int64) -> Bool

    /// The error the writer of a lost change receives.
    func lostChangeError() -> WireError

    /// Runs `action` once `revision` is acknowledged or lost (at once if it
    /// already is), outside any lock of the implementation's.
    func whenAcknowledged(_ revision: Int64, _ action: @escaping @Sendable () -> Void)
}
