import ObservatoryWire

// The checks of a session's rights (its token's, or the anonymous ones) before it reads or writes.
extension Session {
    /// Throws unless this session may read `key`.
    func checkRead(_ key: String) throws(WireError) {
        guard let rights, !rights.read.allows(key) else { return }
        throw denied("read \"\(key)\"")
    }

    /// Throws unless this session may read `target`: a key, or every key under a prefix.
    func checkRead(_ target: Target) throws(WireError) {
        switch target {
        case .key(let key):
            try checkRead(key)
        case .prefix(let prefix):
            guard let rights, !rights.read.allowsEveryKey(withPrefix: prefix) else { return }
            throw denied("read every key under \"\(prefix)\" (observing a prefix needs a rule such as \"\(prefix)*\")")
        }
    }

    /// A conditional write also needs read access: its `conflict` reply tells
    /// whether the key exists and its version.
    func checkWrite(_ key: String, ifVersion: Int64?) throws(WireError) {
        if let rights, !rights.write.allows(key) {
            throw denied("write \"\(key)\"")
        }
        guard ifVersion != nil else { return }
        try checkRead(key)
    }

    /// Throws the error of the first operation of a batch this session may not
    /// perform, with its index: a `check` needs read rights, a `set` or `delete`
    /// write rights (and read rights with `ifVersion`, as alone).
    func checkRights(of operations: [BatchOperation<EncodedJSON>]) throws(WireError) {
        guard rights != nil else { return }
        for (index, operation) in operations.enumerated() {
            do throws(WireError) {
                switch operation {
                case .check(let key, _): try checkRead(key)
                case .set, .delete: try checkWrite(operation.key, ifVersion: operation.ifVersion)
                }
            } catch {
                throw error.at(index: index)
            }
        }
    }

    /// `forbidden` for a token's connection; `unauthenticated` before a `hello`
    /// with a token, since one might grant what the anonymous rights do not.
    func denied(_ action: String) -> WireError {
        guard hasToken else {
            return WireError(
                code: .unauthenticated, message: "anonymous connections may not \(action); send hello with a token")
        }
        return WireError(code: .forbidden, message: "this token may not \(action)")
    }
}
