/// Which of the configured servers the client tries next: the first, and after
/// every failed or broken connection the one after it, round and round.
///
/// A plain value in ``ClientMachine``; the client resumes its mirrors on
/// whichever server it reaches (the nodes of a cluster share one history, so
/// a resume works on any of them).
struct EndpointRotation: Equatable {
    /// How many servers there are (at least 1).
    let count: Int
    /// The index of the server to try now.
    private(set) var current = 0
    /// Connections that failed or broke since the last one that said hello.
    private(set) var failuresInRow = 0
    /// Whether any server has ever answered hello.
    private(set) var hasConnected = false

    /// Whether, since the client started, no server has answered and some has
    /// not been tried: a client that does not reconnect still tries each server once.
    var hasUntriedServer: Bool { !hasConnected && failuresInRow < count }

    /// Rotation over `count` servers, starting with the first.
    init(count: Int) {
        self.count = max(count, 1)
    }

    /// The connection to the current server failed or broke: the next one is tried.
    mutating func advance() {
        current = (current + 1) % count
        failuresInRow += 1
    }

    /// The current server answered hello.
    mutating func connected() {
        failuresInRow = 0
        hasConnected = true
    }
}
