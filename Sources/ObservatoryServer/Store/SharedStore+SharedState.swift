import ObservatoryWire

// The local shared state: this process's store and its storage.
extension SharedStore: SharedState {
    func apply(_ write: Write, by author: Author) throws(WireError) -> WriteReply {
        switch write {
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId):
            .ready(
                try set(
                    key, to: value, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId, by: author))
        case .delete(let key, let ifVersion, let requestId):
            .ready(try delete(key, ifVersion: ifVersion, requestId: requestId, by: author))
        }
    }

    func close() {
        storage?.close()
    }
}
