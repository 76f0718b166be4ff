import ObservatoryWire

/// A mirror's rules to and from an ``OfflineEntry``: what the offline store
/// keeps of a mirror, and where a mirror made for a kept key starts.
extension MirrorState where Value: Codable {
    /// The entry to keep for `key`: the server's value with its version and
    /// author (`authorOf` names an author; nil for one that no session is),
    /// where to resume (`resumePoint`, at least the value's version), and the
    /// unacknowledged local write with its request id. Nil when there is
    /// nothing to keep (no value known and no write).
    func offlineEntry(
        key: String, resumePoint: ResumePoint?, authorOf: (Author) -> (name: String, session: String)?
    ) -> OfflineEntry? {
        var entry = OfflineEntry(
            key: key, version: version, revision: max(version, resumePoint?.revision ?? 0),
            epoch: resumePoint?.epoch)
        switch server {
        case .unknown, .undecodable:
            entry.isKnown = false
        case .absent(let author):
            (entry.authorName, entry.authorSession) = (authorOf(author)?.name, authorOf(author)?.session)
        case .value(let value, let author):
            guard let encoded = try? JSONValue(encoding: value) else {
                entry.isKnown = false
                break
            }
            entry.value = encoded
            (entry.authorName, entry.authorSession) = (authorOf(author)?.name, authorOf(author)?.session)
        }
        if !isQuiet, let requestId, let localValue, let encoded = try? JSONValue(encoding: localValue) {
            entry.write = OfflineEntry.Write(value: encoded, requestId: requestId, basedOn: basedOn)
        }
        guard entry.isKnown || entry.write != nil else { return nil }
        return entry
    }

    /// Starts from `entry`: its value as the server's (by the author that
    /// `makeAuthor` makes of its name and session), and its write as unsent.
    /// A value or write that does not decode as `Value` is left out.
    mutating func restore(_ entry: OfflineEntry, makeAuthor: (_ name: String?, _ session: String?) -> Author) {
        let remote: Remote?
        if !entry.isKnown {
            remote = nil
        } else if let value = entry.value {
            remote = (try? value.decode(Value.self)).map(Remote.value)
        } else {
            remote = .absent
        }
        let write = entry.write.flatMap { write in
            (try? write.value.decode(Value.self)).map {
                (value: $0, requestId: write.requestId, basedOn: write.basedOn)
            }
        }
        restored(
            remote, version: entry.version, author: makeAuthor(entry.authorName, entry.authorSession), write: write)
    }
}
