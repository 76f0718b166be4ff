import ObservatoryWire

// The `history` op's reading of the held changes (docs/protocol.md, "History").
extension ChangeHistory {
    /// Every change with a version above this one is held, none at or below it.
    var horizon: Int64 {
        floor
    }

    /// The held changes `query` asks for whose keys `isIncluded` lets through,
    /// with versions in (`fromRevision`, `toRevision` or `revision`], at most
    /// `query.limit` of them and at most `maxBytes` of events (always at least
    /// one), oldest or newest first; `more` when a further one matches.
    ///
    /// Walks the held changes in place and copies only the references it returns,
    /// so a reply costs what it holds, never a copy of the history.
    func page(
        _ query: HistoryQuery, revision: Int64, maxBytes: Int, where isIncluded: (String) -> Bool
    ) -> HistoryPage {
        var page = HistoryPage(revision: revision, horizon: horizon)
        let upper = min(query.toRevision ?? revision, revision)
        let lower = query.fromRevision
        guard lower < upper else { return page }
        let first = firstIndex(after: lower)
        let end = firstIndex(after: upper)
        guard first < end else { return page }
        let step = query.newestFirst ? -1 : 1
        var index = query.newestFirst ? end - 1 : first
        var bytes = 0
        while index >= first && index < end {
            let change = held(index)
            index += step
            guard Self.matches(change.key, query.target), query.admits(author: change.author, session: change.session),
                isIncluded(change.key)
            else { continue }
            let size = change.frameByteCount
            if page.changes.count == query.limit || (!page.changes.isEmpty && bytes + size > maxBytes) {
                page.more = true
                break
            }
            bytes += size
            page.changes.append(change)
        }
        return page
    }
}
