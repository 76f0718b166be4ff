import Dispatch
import Observatory
import ObservatoryLogging

/// Who may do what: the configured tokens and anonymous rights, the constant-time
/// token lookup, and the rate-limited log of failed `hello`s.
///
/// ## Locking
/// Only the failed-hello throttle changes; it sits in a `Locked` box, and the
/// logger is called after the box is released.
final class Authenticator: Sendable {
    /// The configured tokens and anonymous rights.
    let auth: AuthConfiguration
    private let logger: Logger
    /// When a failed `hello` was last logged (uptime nanoseconds), and how many were not logged since.
    private let failedHellos = Locked<(lastLogged: UInt64, suppressed: Int)>((0, 0))

    init(auth: AuthConfiguration, logger: Logger) {
        self.auth = auth
        self.logger = logger
    }

    /// Whether clients must present a token in `hello` (to do more than `anonymous` allows).
    var requiresAuthentication: Bool { !auth.tokens.isEmpty }

    /// Whether a session that has presented no token can do nothing until it does:
    /// authentication is on and no `anonymous` rights are configured.
    var requiresToken: Bool { requiresAuthentication && auth.anonymous == nil }

    /// The token entry for `secret`, if any.
    ///
    /// Compares the UTF-8 bytes of every token in constant time (no early exit, no
    /// Unicode equivalence), so that neither timing nor another spelling of the
    /// same characters helps a guesser.
    func accessToken(_ secret: String) -> AccessToken? {
        let offered = Array(secret.utf8)
        var found: AccessToken?
        for entry in auth.tokens where Self.constantTimeEqual(Array(entry.token.utf8), offered) {
            found = entry
        }
        return found
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }

    /// Logs a failed `hello` with the peer's address, at most once a second (a
    /// client guessing tokens must not flood the log), counting the ones left out.
    func logFailedHello(from peer: String, _ reason: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let suppressed = failedHellos.withLock { state -> Int? in
            guard state.lastLogged == 0 || now - state.lastLogged >= 1_000_000_000 else {
                state.suppressed += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (and \(suppressed) more since the last one logged)" : ""
        logger.warning("failed hello from \(peer): \(reason)\(more)")
    }
}
