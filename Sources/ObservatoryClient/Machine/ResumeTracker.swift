import ObservatoryWire

/// How far the client has seen the changes of each target it observes, so that
/// after a reconnect it can ask for exactly the changes it missed (`observe` with
/// `fromRevision`, docs/protocol.md "Resume").
///
/// A target's mark starts at the revision of its `observe` reply and moves up
/// with every event of the target and every `ping` reply (docs/protocol.md
/// "Progress": a ping reply follows every event up to its revision). Marks are
/// tied to the link (its generation) they were made on: a ping on a new link only
/// moves the marks of targets already observed on it, since any other target's
/// `observe` is answered after that ping.
///
/// A plain value; the client keeps it in its locked state.
struct ResumeTracker {
    /// How far one target has been seen.
    struct Mark: Equatable {
        var revision: Int64
        var epoch: String
        var generation: Int
    }

    private var keys: [String: Mark] = [:]
    private var prefixes: [String: Mark] = [:]

    /// The target was observed (or resumed) on link `generation`; its reply said `revision`.
    mutating func observed(_ target: Target, revision: Int64, epoch: String, generation: Int) {
        let mark = Mark(revision: revision, epoch: epoch, generation: generation)
        switch target {
        case .key(let key): keys[key] = mark
        case .prefix(let prefix): prefixes[prefix] = mark
        }
    }

    /// An event of `key` at `version` arrived on link `generation`.
    mutating func saw(key: String, version: Int64, generation: Int) {
        if let mark = keys[key], mark.generation == generation, version > mark.revision {
            keys[key]?.revision = version
        }
        for (prefix, mark) in prefixes where mark.generation == generation && version > mark.revision {
            if key.utf8.starts(with: prefix.utf8) { prefixes[prefix]?.revision = version }
        }
    }

    /// A ping reply on link `generation` said `revision`: every target observed
    /// on that link has seen everything up to it.
    mutating func progressed(to revision: Int64, generation: Int) {
        for (key, mark) in keys where mark.generation == generation && revision > mark.revision {
            keys[key]?.revision = revision
        }
        for (prefix, mark) in prefixes where mark.generation == generation && revision > mark.revision {
            prefixes[prefix]?.revision = revision
        }
    }

    /// The server closed link `generation` as a slow consumer, saying that every
    /// event up to `revision` came before its error: every target observed on that
    /// link resumes from there. Also lower: a target's last event may be a
    /// coalesced one, sent ahead of an earlier event of another key that was
    /// dropped. (A target whose `observe` was not answered on that link keeps its
    /// older mark: its reply, and so its start, may have been dropped.)
    mutating func closedAsSlowConsumer(at revision: Int64, generation: Int) {
        for (key, mark) in keys where mark.generation == generation {
            keys[key]?.revision = revision
        }
        for (prefix, mark) in prefixes where mark.generation == generation {
            prefixes[prefix]?.revision = revision
        }
    }

    /// Where to resume `target`, if it was ever observed.
    func resumePoint(for target: Target) -> ResumePoint? {
        let mark: Mark? =
            switch target {
            case .key(let key): keys[key]
            case .prefix(let prefix): prefixes[prefix]
            }
        return mark.map { ResumePoint(revision: $0.revision, epoch: $0.epoch) }
    }

    /// The target is no longer observed.
    mutating func forget(_ target: Target) {
        switch target {
        case .key(let key): keys[key] = nil
        case .prefix(let prefix): prefixes[prefix] = nil
        }
    }
}
