import Foundation
import ObservatoryWire

/// One change of a key as ``ObservatoryClient/history(_:as:)`` returns it: who
/// made it, when, and the values before and after it, decoded as `Value`.
public struct HistoryEntry<Value: Decodable & Sendable>: Sendable {
    /// The key that changed.
    public let key: String
    /// The value before the change; nil when the change created the key.
    public let old: Value?
    /// The value after the change; nil when the change deleted the key.
    public let new: Value?
    /// The revision of the change.
    public let version: Int64
    /// The author name the server stamped on the change (no client can forge it).
    public let author: String
    /// The session the change was made in.
    public let session: String
    /// Why the server deleted the key (`session_ended`, `expired`), for a delete
    /// it made itself; nil otherwise.
    public let reason: String?
    /// When the server made the change, by its clock (1970-01-01 when the server
    /// does not know, as for changes stored by a version that kept no times).
    public let date: Date
    /// The change as the server sent it, values undecoded.
    public let change: HistoryChange<JSONValue>

    /// Whether the change deleted the key.
    public var isDelete: Bool {
        if case .delete = change.event { return true }
        return false
    }

    /// Decodes a change of a `history` reply; throws ``ClientError/Code/undecodableValue``
    /// when a value is not a `Value`, ``ClientError/Code/badReply`` for a shutdown event.
    public init(_ change: HistoryChange<JSONValue>) throws(ClientError) {
        self.change = change
        date = Date(timeIntervalSince1970: Double(change.at) / 1000)
        switch change.event {
        case .update(let key, let old, let new, let version, let author, let session, _, _):
            (self.key, self.version, self.author, self.session, reason) = (key, version, author, session, nil)
            self.old = try old.map { (value) throws(ClientError) in try Self.decode(value, key: key, version: version) }
            self.new = try Self.decode(new, key: key, version: version)
        case .delete(let key, let old, let version, let author, let session, let reason):
            (self.key, self.version, self.author, self.session, self.reason) = (key, version, author, session, reason)
            self.old = try Self.decode(old, key: key, version: version)
            new = nil
        case .shutdown:
            throw .badReply("a history reply holds a shutdown event")
        }
    }

    private static func decode(_ value: JSONValue, key: String, version: Int64) throws(ClientError) -> Value {
        do {
            return try value.decode(Value.self)
        } catch {
            throw .undecodableValue(
                key: key, version: version, type: String(describing: Value.self), detail: String(describing: error))
        }
    }
}
