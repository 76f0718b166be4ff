import Dispatch
import ObservatoryEtcd
import ObservatoryWire

// Expiring keys in cluster mode (docs/cluster.md, "Expiring keys"). A key has
// one lease in etcd: an expiring key goes on the lease of the second it expires
// in (`ClusterExpiryLeases`), and etcd deletes it then; a session-bound one
// stays on its session's lease (so it goes when the session or its node ends)
// and the node of its session deletes it at its time, here: whichever comes first.
extension ClusterState {
    /// Deletes session-bound `key` at `deadline` (milliseconds since 1970), if
    /// its expiry is then still due and the key unchanged: in the name of the
    /// write that set the expiry, with a marker saying it expired. A dispatch
    /// timer on `workers`, no thread of its own; a later restart of the clock
    /// sets another, and this one then finds the key not due.
    func expireSessionBound(_ key: String, at deadline: Int64) {
        let delay = max(0, deadline - KeyExpiry.wallMilliseconds())
        workers.asyncAfter(wallDeadline: .now() + .milliseconds(Int(delay))) { [weak self] in
            self?.deleteIfDue(key)
        }
    }

    private func deleteIfDue(_ key: String) {
        guard let entry = cache.get(key), let expiry = entry.expiry,
            expiry.deadline <= KeyExpiry.wallMilliseconds()
        else { return }
        let revision = restartedRevisions.withLock { $0[key] } ?? entry.version
        let marker = ClusterEnvelope(
            value: nil, author: Author(name: expiry.author, session: expiry.session), expired: true,
            at: StoreChange.now())
        let transaction = EtcdTransaction(
            compares: [.unchanged(layout.valueKey(key), since: revision)],
            success: [
                .put(key: layout.deletionKey(key), value: marker.encoded()),
                .deleteRange(.key(layout.valueKey(key))),
            ],
            failure: [])
        do throws(EtcdError) {
            // Not applied when the key changed meanwhile: the write that changed it decides its expiry.
            _ = try client.transaction(transaction)
        } catch {
            logger.error(
                "cluster: the expired key \"\(key)\" could not be deleted (\(error.message)); "
                    + "it goes when its session ends")
        }
    }

    /// Keeps `restartedRevisions` in step with `changes`, before the cache
    /// applies them: a restart's put moves the key's `mod_revision` on, any
    /// other change of the key makes it its version again.
    func trackRestartedRevisions(_ changes: [ClusterChange]) {
        guard !changes.isEmpty else { return }
        restartedRevisions.withLock { revisions in
            for change in changes {
                if case .restart(let key, let revision, _) = change {
                    revisions[key] = revision
                } else if !revisions.isEmpty {
                    revisions[change.key] = nil
                }
            }
        }
    }
}
