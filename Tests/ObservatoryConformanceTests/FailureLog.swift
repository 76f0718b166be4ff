import Observatory

/// Failures collected from several threads; the list lives in a `Locked` box.
final class FailureLog: Sendable {
    private let stored = Locked<[String]>([])

    func append(_ entry: String) {
        stored.withLock { $0.append(entry) }
    }

    var entries: [String] {
        stored.withLock { $0 }
    }
}
