/// What the web face reads from the running server when it answers a request
/// that is not a session operation: whether it serves, and its metrics.
struct WebContext: Sendable {
    /// Whether the server serves (else `/healthz` answers 503).
    var isServing: Bool
    /// The metrics page, made only when asked for.
    var metrics: @Sendable () -> [UInt8]

    /// A context for tests and for servers without metrics.
    static let serving = WebContext(isServing: true) { [] }
}
