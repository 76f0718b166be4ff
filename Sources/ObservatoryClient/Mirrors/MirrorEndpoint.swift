import ObservatoryWire

/// What the client needs from a mirror, whatever its value type: the key it
/// mirrors and the entry points for snapshots, events and resends.
protocol MirrorEndpoint: AnyObject, Sendable {
    /// The remote key.
    var key: String { get }
    /// The version of the server's value the mirror last took (0 while the key does not exist).
    var version: Int64 { get }
    /// Whether the mirror has taken a snapshot (only then can it resume after a reconnect).
    var hasSnapshot: Bool { get }
    /// Takes a fresh snapshot of the key (nil: the key does not exist) as the
    /// server's truth for the link with `generation`; `reset`, when the client
    /// asked to resume and could not, authors the update.
    func applySnapshot(_ entry: ValueEntry?, author: Author?, reset: Reset?, generation: Int)
    /// The server resumed the key on the link with `generation`: the missed
    /// events follow, and the mirror keeps its value until they come.
    func resume(generation: Int)
    /// The session ended: a session-bound mirror writes its value again on the next link.
    func sessionEnded()
    /// Applies a change event that arrived on the link with `generation`;
    /// returns what the client carries out on the delivery queue with the rest
    /// of the event's run (``MirrorDelivery``).
    func applyEvent(_ event: Event, author: Author, generation: Int) -> MirrorDelivery
    /// Sends the local value if a local write has not reached the server yet.
    func sendUnsentWrite()
}

/// What a mirror needs from its client, without a strong reference to it.
protocol MirrorHost: AnyObject, Sendable {
    /// Sends `set` for the mirror now if the client is in sync; otherwise keeps
    /// the mirror to send its unsent write after the next resync.
    func requestSend(for mirror: any MirrorEndpoint)
    /// Sends a request on the current link if the client is in sync; false when not.
    func sendIfSynchronized(_ operation: Operation<JSONValue>, completion: @escaping ServerLink.Completion) -> Bool
    /// Whether a change of a mirror's `Var` by `author` came from the server (the
    /// mirror's own update) or from the program: the client's echo filter.
    func origin(ofChangeBy author: AnyObject) -> ClientMachine<ServerLink>.ChangeOrigin
    /// The author for updates that no session made (a key missing from a snapshot).
    var resyncAuthor: any AnyObject & Sendable { get }
    /// The `Author` of this client's own session, for acknowledgements of its writes.
    var localAuthor: Author? { get }
    /// Reports an error to the client's error stream and logger.
    func report(_ error: ClientError)
    /// Sends a conflict report to the client's ``ObservatoryClient/conflicts``.
    func reportConflict(_ report: ConflictReport)
    /// Where `key` would resume now (its revision and epoch), for the offline store.
    func resumePoint(forKey key: String) -> ResumePoint?
}
