/// What the server does with one observation's events when its connection falls
/// behind them (`observe` field `"slow"`, docs/protocol.md "Slow consumers").
public enum SlowPolicy: String, Sendable, Hashable, CaseIterable {
    /// Pending events of a key merge into one (first `old`, latest `new` and
    /// `version`); only if that is not enough is the connection closed. The
    /// default: a dashboard needs the latest value, not every step to it.
    case coalesce
    /// Events are never merged; when they do not fit, the connection is closed
    /// with `slow_consumer`, whose `revision` says where to resume. For clients
    /// that must see every intermediate value.
    case close
}
