import ObservatoryWire

/// The events of one revision that arrived back to back and wait to be
/// applied together: a batch's changes (docs/protocol.md, "Batches"), or a
/// single change, which is a run of one.
///
/// The server sends a batch's events as one run, each with the batch's
/// revision as its `version`, and no other frame between them. The client
/// cannot know how many a run holds, so a run ends at the first sign that
/// nothing more of it is coming now:
/// - an event of another version arrives (it starts the next run);
/// - a frame that is not an event arrives (a reply, or the link's end);
/// - the socket has nothing more to read and the bytes read so far end at a
///   frame's end: the server has written no more of the run yet, and it writes
///   a batch's events in one go. While more bytes wait in the socket, or the
///   bytes end inside a frame (that frame is still coming), the run waits: a
///   run split across reads is still applied as one.
///
/// A plain value inside ``ClientMachine``; the machine's inputs return the
/// runs that ended, for the shell to apply.
struct EventRun {
    /// The events waiting, in the order they arrived; all of one version.
    private(set) var events: [Event] = []

    /// The version of the events waiting, if any wait.
    var version: Int64? { events.first.flatMap(Self.version(of:)) }

    /// `event` arrived: returns the run it ends (the waiting events, of
    /// another version), or an empty array when it joins the waiting run.
    mutating func add(_ event: Event) -> [Event] {
        guard let eventVersion = Self.version(of: event) else {
            // Not a change (never routed): it ends the run and goes with it.
            var ended = take()
            ended.append(event)
            return ended
        }
        guard let version, version != eventVersion else {
            events.append(event)
            return []
        }
        let ended = take()
        events.append(event)
        return ended
    }

    /// Nothing more of the run can come now: returns the waiting events and forgets them.
    mutating func take() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    private static func version(of event: Event) -> Int64? {
        switch event {
        case .update(_, _, _, let version, _, _, _, _), .delete(_, _, let version, _, _, _): version
        case .shutdown: nil
        }
    }
}
