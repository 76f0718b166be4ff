import Foundation
import ObservatoryClient
import ObservatoryWire

/// Formats what the command-line tool prints for values and changes.
public enum ChangeFormatter {
    /// One change as `key old → new by author (vN)`; `(none)` stands for the
    /// missing old value of a created key, `(deleted)` for the new value of a
    /// deleted one, `(session ended)` for a session-bound key the server deleted
    /// because its owner's session ended, `(expired)` for an expiring key whose
    /// time was up. Values are compact JSON.
    ///
    ///     sky.color "blue" → "red" by alice (v12)
    public static func line(for change: RemoteChange) -> String {
        let old = change.old.map(text) ?? "(none)"
        let new = change.new.map(text) ?? deletion(change.event)
        return "\(change.key) \(old) → \(new) by \(change.author.name) (v\(change.version))"
    }

    /// One held change as `history` prints it: the local time it was made, then
    /// the change as ``line(for:)`` writes it (`(expired)` for a key whose time ran out).
    ///
    ///     2026-11-28 06:12:03.123 sky.color "blue" → "red" by alice (v12)
    public static func line(for entry: HistoryEntry<JSONValue>, timeZone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        let old = entry.old.map(text) ?? "(none)"
        let new =
            entry.new.map(text)
            ?? (entry.reason == Event.sessionEnded ? "(session ended)" : entry.reason.map { "(\($0))" } ?? "(deleted)")
        return
            "\(formatter.string(from: entry.date)) \(entry.key) \(old) → \(new) by \(entry.author) (v\(entry.version))"
    }

    /// What stands for the new value of a deleted key: why the server deleted it, if it did.
    private static func deletion(_ event: Event) -> String {
        guard case .delete(_, _, _, _, _, let reason) = event else { return "(deleted)" }
        switch reason {
        case Event.sessionEnded: return "(session ended)"
        case Event.expired: return "(expired)"
        default: return "(deleted)"
        }
    }

    /// The longest value `preview(_:)` prints whole, in characters.
    public static let previewLength = 60

    /// A value as compact JSON text, cut short when longer than ``previewLength``
    /// characters: its first 40 characters, `…` and its size, as `set` prints it.
    ///
    ///     {"rows":[[1,2,3],[4,5,6],[7,8,9],[10,11,… (140213 bytes)
    public static func preview(_ value: JSONValue) -> String {
        let text = self.text(value)
        guard text.count > previewLength else { return text }
        return "\(text.prefix(40))… (\(text.utf8.count) bytes)"
    }

    /// A value as compact JSON text.
    public static func text(_ value: JSONValue) -> String {
        String(decoding: value.encoded(), as: UTF8.self)
    }
}
