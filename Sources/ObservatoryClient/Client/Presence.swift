import Dispatch
import Observatory
import ObservatoryWire

/// Who is here: the members present under a key prefix, as an ordinary
/// observable, kept up to date from session-bound keys.
///
/// Each member announces itself with a session-bound key, `prefix + name`
/// (``ObservatoryClient/presence(under:as:ttl:)`` does it for you). The server
/// deletes that key when the member's session ends, however it ends, so a
/// member that crashes or loses its network leaves on its own, within the
/// server's dead-peer time or at once when its socket closes.
///
///     let lobby = try await client.presence(under: "chat.lobby.online.", as: "alice")
///     observer.observe(lobby.members) { update, author in
///         let who = (author as? Author)?.name ?? "?"
///         print("online: \(update.new.sorted()) (\(who) came or went)")
///     }
///
/// Every update of ``members`` after the first list is authored by the
/// `Author` who joined or left.
///
/// A presence runs no task of its own: the client hands it the prefix's
/// changes on its I/O thread, and it announces itself again from an observer
/// of the client's connection state.
public final class Presence: Sendable {
    /// How far the members are known. Guarded by `follow`'s lock.
    private struct Follow {
        /// Name → version of its last join or leave taken; nil until the first list.
        var known: [String: Int64]?
        /// Changes that came before the first list, taken once it is there.
        var early: [RemoteChange] = []
        /// The client's watcher that feeds this presence.
        var watcher: Int?
        /// Set by ``stop()``: no more changes are taken.
        var stopped = false
    }

    /// One join or leave to show.
    private struct Arrival {
        let name: String
        let isHere: Bool
        let author: Author
    }

    /// The prefix the members' keys share.
    public let prefix: String
    /// The name this client announced itself as.
    public let name: String
    /// The seconds after each announcement that the announcement expires, if it does.
    public let ttl: Int64?
    /// The names present (each key's part after the prefix), this client included.
    public let members: Var<Set<String>>
    private let follow = Locked(Follow())
    private let deliveryQueue: DispatchQueue
    /// Observes the client's connection state, to announce again after reconnects.
    private let announcer = FreeObserver()

    init(prefix: String, name: String, ttl: Int64? = nil, deliveryQueue: DispatchQueue) {
        self.prefix = prefix
        self.name = name
        self.ttl = ttl
        self.deliveryQueue = deliveryQueue
        self.members = Var([])
    }

    /// Writes the announcement again whenever `client` is connected anew: the
    /// server deleted it when the previous session ended.
    func announceAfterReconnects(on client: ObservatoryClient) {
        let (key, ttl) = (prefix + name, ttl)
        announcer.observe(client.connectionState) { [weak client] (update: Update<ConnectionState>) in
            guard update.new == .connected, update.old != .connected else { return }
            client?.announce(key, ttl: ttl)
        }
    }

    /// The client's watcher `identifier` feeds this presence.
    func fed(by identifier: Int) {
        follow.withLock { $0.watcher = identifier }
    }

    /// Takes a change of the prefix (on the client's I/O thread): a join or a
    /// leave newer than what the members show; kept for later before the first list.
    func take(_ change: RemoteChange) {
        let arrival: Arrival? = follow.withLock { follow in
            guard !follow.stopped else { return nil }
            guard var known = follow.known else {
                follow.early.append(change)
                return nil
            }
            defer { follow.known = known }
            return Self.arrival(of: change, prefix: prefix, known: &known)
        }
        if let arrival { show(arrival) }
    }

    /// The first list came: `versions` (name → version) are the members now,
    /// and the changes that came before it are taken if they are newer.
    func listed(_ versions: [String: Int64]) {
        // No change is shown before `known` is set, so this comes first.
        members.value = Set(versions.keys)
        let arrivals = follow.withLock { follow in
            var known = versions
            let arrivals = follow.early.compactMap { Self.arrival(of: $0, prefix: prefix, known: &known) }
            follow.known = known
            follow.early = []
            return arrivals
        }
        for arrival in arrivals { show(arrival) }
    }

    /// Stops following the members and announcing; returns the watcher to remove
    /// (the key is deleted by ``ObservatoryClient/leave(_:)``).
    func stop() -> Int? {
        announcer.stopObserving()
        return follow.withLock { follow in
            follow.stopped = true
            follow.early = []
            return follow.watcher
        }
    }

    /// The join or leave that `change` is, if it is newer than `known` says.
    private static func arrival(of change: RemoteChange, prefix: String, known: inout [String: Int64]) -> Arrival? {
        let name = String(change.key.dropFirst(prefix.count))
        guard change.version > known[name] ?? 0 else { return nil }
        known[name] = change.version
        return Arrival(name: name, isHere: change.new != nil, author: change.author)
    }

    /// Shows a join or leave in ``members``, on the delivery queue.
    private func show(_ arrival: Arrival) {
        deliveryQueue.async { [members] in
            var present = members.value
            let changed =
                arrival.isHere ? present.insert(arrival.name).inserted : present.remove(arrival.name) != nil
            if changed { members.set(present, as: arrival.author) }
        }
    }
}
