import ObservatoryWire

/// The offline store's writes for keys that no mirror of this process holds.
extension ObservatoryClient {
    /// After a resync, sends every write the offline store kept for a key that
    /// no mirror holds (a mirror sends its own), with its original `requestId`,
    /// so a write made before a restart reaches the server once even if the
    /// program does not mirror its key again. A mirror made for the key
    /// meanwhile sends the same write under the same id: the server applies it once.
    func sendKeptWrites(on link: ServerLink) {
        guard let offline else { return }
        let mirrored = state.withLock { $0.machine.registry.byKey }
        for entry in offline.keptWrites() where mirrored[entry.key] == nil {
            guard let write = entry.write else { continue }
            let operation = Operation<JSONValue>.set(
                key: entry.key, value: write.value, ifVersion: nil, sessionBound: false, requestId: write.requestId)
            send(operation, on: link) { [weak self] result in
                self?.keptWriteReplied(key: entry.key, requestId: write.requestId, result)
            }
        }
    }

    /// A kept write was answered: applied or refused, it is no longer kept (a
    /// refusal is reported); without an answer it waits for the next resync.
    private func keptWriteReplied(key: String, requestId: String, _ result: Result<ReceivedReply, ClientError>) {
        guard case .success(let received) = result else { return }
        if case .failure(let error) = received.outcome { report(.server(error)) }
        offline?.forgetWrite(key: key, requestId: requestId)
    }
}
