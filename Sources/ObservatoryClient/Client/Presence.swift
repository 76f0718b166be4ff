import Dispatch
import Observatory
import ObservatoryWire

/// Who is here: the members present under a key prefix, as an ordinary
/// observable, kept up to date from session-bound keys.
///
/// Each member announces itself with a session-bound key, `prefix + name`
/// (``ObservatoryClient/presence(under:as:)`` does it for you). The server
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
public final class Presence: Sendable {
    /// The prefix the members' keys share.
    public let prefix: String
    /// The name this client announced itself as.
    public let name: String
    /// The names present (each key's part after the prefix), this client included.
    public let members: Var<Set<String>>
    private let watch: Locked<Task<Void, Never>?> = Locked(nil)
    /// Observes the client's connection state, to announce again after reconnects.
    private let announcer = FreeObserver()

    init(prefix: String, name: String, members: Set<String>) {
        self.prefix = prefix
        self.name = name
        self.members = Var(members)
    }

    /// Writes the announcement again whenever `client` is connected anew: the
    /// server deleted it when the previous session ended.
    func announceAfterReconnects(on client: ObservatoryClient) {
        let key = prefix + name
        announcer.observe(client.connectionState) { [weak client] (update: Update<ConnectionState>) in
            guard update.new == .connected, update.old != .connected, let client else { return }
            Task {
                do throws(ClientError) {
                    try await client.set(key, true, ephemeral: true)
                } catch {
                    client.report(error)
                }
            }
        }
    }

    /// Follows `changes` (the prefix's stream), taking each join or leave newer
    /// than what `versions` (name → version of the first list) already shows.
    func follow(
        _ changes: AsyncStream<RemoteChange>, versions: [String: Int64], deliveryQueue: DispatchQueue
    ) {
        let task = Task { [members, prefix] in
            var known = versions
            for await change in changes {
                let name = String(change.key.dropFirst(prefix.count))
                guard change.version > known[name] ?? 0 else { continue }
                known[name] = change.version
                let isHere = change.new != nil
                deliveryQueue.async {
                    var present = members.value
                    let changed = isHere ? present.insert(name).inserted : present.remove(name) != nil
                    if changed { members.set(present, as: change.author) }
                }
            }
        }
        watch.withLock { $0 = task }
    }

    /// Stops following the members and announcing (the key is deleted by ``ObservatoryClient/leave(_:)``).
    func stop() {
        watch.withLock { $0 }?.cancel()
        announcer.stopObserving()
    }
}
