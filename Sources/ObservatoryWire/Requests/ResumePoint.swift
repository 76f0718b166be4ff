/// Where an `observe` resumes: the last revision the client has seen, and the
/// epoch that revision belongs to (docs/protocol.md, "Resume").
///
/// The server then sends every change of the target after `revision` instead of
/// a snapshot, or says it cannot (`resumed: false`, with a snapshot).
public struct ResumePoint: Sendable, Hashable {
    /// The last revision the client has seen (`fromRevision`); changes after it are replayed.
    public var revision: Int64
    /// The epoch of `revision`, if the client knows it; a server of another epoch cannot resume.
    public var epoch: String?

    /// Creates a resume point.
    public init(revision: Int64, epoch: String?) {
        self.revision = revision
        self.epoch = epoch
    }
}
