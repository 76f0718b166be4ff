extension ServerConfiguration {
    /// Warnings about a configuration that works but is unsafe: short tokens, and
    /// listening beyond loopback without authentication.
    var warnings: [String] {
        var warnings = auth.tokens.filter { $0.token.utf8.count < 16 }.map {
            "the token of \($0.author) is \($0.token.utf8.count) bytes; use at least 16 random bytes"
        }
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
        if !loopback && !requiresAuthentication {
            warnings.append(
                "listening on \(host) without authentication: anyone who can reach the port "
                    + "may read and write every key; configure tokens, or listen on 127.0.0.1")
        }
        return warnings
    }
}
