/// What a mirror does when a change by someone else, which the program has not
/// seen, meets a local write that is not sent yet (see ``ConflictReport``).
public enum ConflictPolicy: Sendable, Equatable {
    /// The write is sent and replaces the change: the last writer wins, as
    /// without a policy. The default.
    case localWins
    /// The write is dropped and the mirror shows the server's newer value.
    case serverWins
}
