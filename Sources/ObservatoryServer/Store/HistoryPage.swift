import ObservatoryWire

/// One reply's worth of held changes for a `history` request (docs/protocol.md,
/// "History"): the changes in the order asked for, whether more match beyond
/// them, the current revision and the horizon of what is held.
struct HistoryPage: Sendable {
    /// The matching changes, oldest or newest first as the query asked.
    var changes: [StoreChange] = []
    /// Whether further matching changes lie in the range beyond the last one.
    var more = false
    /// The last revision when the page was taken.
    var revision: Int64 = 0
    /// Every change with a version above it is held, none at or below it.
    var horizon: Int64 = 0

    /// The reply's fields, each change as its event plus `at`.
    func reply(id: RequestID?) -> RawReply {
        .success(
            id: id,
            .history(
                changes: changes.map { HistoryChange(event: $0.event, at: $0.at) }, more: more,
                revision: revision, horizon: horizon))
    }
}
