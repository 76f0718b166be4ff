import ObservatoryClient
import Synchronization

/// What the connection lines say: every state while the server is there; once it
/// is away, that once, and then nothing until it is back.
///
/// ## Locking
/// The connection's observer may run on any thread: the one piece of state, when
/// the server went away, is behind a `Mutex`.
final class ConnectionReport: Sendable {
    /// When the server went away, while it is away.
    private let awaySince = Mutex<ContinuousClock.Instant?>(nil)

    /// The line for a new state, or `nil` when it would only repeat that the server is still away.
    func line(for state: ConnectionState) -> String? {
        awaySince.withLock { since in
            switch state {
            case .disconnected(let reason) where since == nil:
                since = .now
                return "connection: disconnected (\(reason)); retrying quietly until the server is back"
            case .connecting, .disconnected:
                return since == nil ? "connection: \(state)" : nil
            case .connected, .reset:
                defer { since = nil }
                guard let away = since else { return "connection: \(state)" }
                let seconds = Int((ContinuousClock.now - away).components.seconds)
                return "connection: \(state), back after \(seconds) s"
            }
        }
    }
}
