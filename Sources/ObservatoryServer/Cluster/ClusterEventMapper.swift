import ObservatoryEtcd
import ObservatoryWire

/// Turns the events of a node's etcd watch into the changes its cache applies.
///
/// A value key's put is a set; its delete is a deletion, whose author is the
/// deletion marker written in the same revision (none when etcd deleted the key
/// with its lease: the cache then names the owner and `session_ended`, or, for
/// an expiring key, the write that set its expiry and `expired`). A marker that
/// says `expired` makes the delete an expiry; a put that only restarts a key's
/// clock (its envelope keeps an earlier version) is a restart, no change.
/// Markers, `requestId`s and values that are not envelopes change nothing.
enum ClusterEventMapper {
    /// The changes of `events` (in revision order), in the same order.
    static func changes(from events: [EtcdWatchEvent], layout: ClusterKeyLayout) -> [ClusterChange] {
        var deletedBy: [Int64: [String: ClusterEnvelope]] = [:]
        for event in events where event.kind == .put {
            guard case .deletion(let key) = layout.kind(of: event.keyValue.key),
                let marker = ClusterEnvelope.decode(event.keyValue.value)
            else { continue }
            deletedBy[event.revision, default: [:]][key] = marker
        }
        var changes: [ClusterChange] = []
        for event in events {
            guard case .value(let key) = layout.kind(of: event.keyValue.key) else { continue }
            switch event.kind {
            case .put:
                guard let envelope = ClusterEnvelope.decode(event.keyValue.value),
                    let entry = envelope.entry(key: key, version: event.revision)
                else { continue }
                if let expiry = envelope.expiry, let kept = envelope.version, kept < event.revision {
                    changes.append(.restart(key: key, revision: event.revision, expiry: expiry))
                } else {
                    changes.append(.set(entry))
                }
            case .delete:
                let marker = deletedBy[event.revision]?[key]
                if marker?.expired == true {
                    changes.append(.expire(key: key, version: event.revision))
                } else {
                    changes.append(.delete(key: key, version: event.revision, author: marker?.author))
                }
            }
        }
        return changes
    }

    /// The time each revision of `events` was made, by revision, from the
    /// envelopes of its values and deletion markers (`at`, the writing node's
    /// clock); a revision whose envelopes carry none is missing.
    static func times(from events: [EtcdWatchEvent], layout: ClusterKeyLayout) -> [Int64: Int64] {
        var times: [Int64: Int64] = [:]
        for event in events where event.kind == .put {
            switch layout.kind(of: event.keyValue.key) {
            case .value, .deletion:
                if let at = ClusterEnvelope.decode(event.keyValue.value)?.at { times[event.revision] = at }
            default:
                continue
            }
        }
        return times
    }
}
