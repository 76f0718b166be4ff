import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// How `ChangeHistory` answers a `history` query: target, author and session
/// filters, the range (from, to], `limit` with `more`, newest first, the byte
/// cap of one reply, and the horizon.
@Suite struct HistoryPageTests {
    private static let alice = Author(name: "alice", session: "s1")
    private static let bob = Author(name: "bob", session: "s2")

    /// A history of `count` changes: odd versions by alice on `a.x`, even ones by bob on `b`.
    private func history(_ count: Int64, capacity: Int = 100) -> ChangeHistory {
        var history = ChangeHistory(capacity: capacity, after: 0)
        for version in 1...count {
            let odd = !version.isMultiple(of: 2)
            history.append(
                .update(
                    key: odd ? "a.x" : "b", old: nil, new: .integer(version), version: version,
                    by: odd ? Self.alice : Self.bob, at: 1_000 + version))
        }
        return history
    }

    private func versions(
        _ query: HistoryQuery, in history: ChangeHistory, revision: Int64 = 10, maxBytes: Int = .max,
        where isIncluded: (String) -> Bool = { _ in true }
    ) -> (versions: [Int64], more: Bool) {
        let page = history.page(query, revision: revision, maxBytes: maxBytes, where: isIncluded)
        return (page.changes.map(\.version), page.more)
    }

    @Test func aTargetKeepsItsKeysChangesOnly() {
        let history = history(10)
        #expect(versions(HistoryQuery(.key("b")), in: history).versions == [2, 4, 6, 8, 10])
        #expect(versions(HistoryQuery(.prefix("a.")), in: history).versions == [1, 3, 5, 7, 9])
        #expect(versions(HistoryQuery(.prefix("")), in: history).versions == Array(1...10))
    }

    @Test func authorAndSessionFilterTogether() {
        let history = history(10)
        #expect(versions(HistoryQuery(.prefix(""), author: "bob"), in: history).versions == [2, 4, 6, 8, 10])
        #expect(versions(HistoryQuery(.prefix(""), session: "s1"), in: history).versions == [1, 3, 5, 7, 9])
        #expect(versions(HistoryQuery(.prefix(""), author: "bob", session: "s1"), in: history).versions == [])
    }

    @Test func theRangeExcludesFromAndIncludesTo() {
        let history = history(10)
        let query = HistoryQuery(.prefix(""), fromRevision: 3, toRevision: 6)
        #expect(versions(query, in: history).versions == [4, 5, 6])
        #expect(versions(HistoryQuery(.prefix(""), fromRevision: 6, toRevision: 6), in: history).versions == [])
        #expect(versions(HistoryQuery(.prefix(""), toRevision: 99), in: history, revision: 10).versions.last == 10)
    }

    @Test func limitEndsAPageWithMoreOnlyWhenAMatchFollows() {
        let history = history(10)
        #expect(versions(HistoryQuery(.key("b"), limit: 2), in: history) == ([2, 4], true))
        #expect(versions(HistoryQuery(.key("b"), fromRevision: 6, limit: 2), in: history) == ([8, 10], false))
        #expect(versions(HistoryQuery(.key("b"), toRevision: 9, limit: 4), in: history) == ([2, 4, 6, 8], false))
    }

    @Test func newestFirstWalksBackFromTheTopOfTheRange() {
        let history = history(10)
        #expect(versions(HistoryQuery(.key("a.x"), limit: 2, newestFirst: true), in: history) == ([9, 7], true))
        let older = HistoryQuery(.key("a.x"), toRevision: 6, limit: 2, newestFirst: true)
        #expect(versions(older, in: history) == ([5, 3], true))
        let oldest = HistoryQuery(.key("a.x"), fromRevision: 1, toRevision: 2, newestFirst: true)
        #expect(versions(oldest, in: history) == ([], false))
    }

    @Test func keysTheReaderMayNotSeeAreLeftOut() {
        let history = history(6)
        #expect(versions(HistoryQuery(.prefix("")), in: history) { $0 == "b" }.versions == [2, 4, 6])
    }

    @Test func aReplyIsCappedInBytesButHoldsAtLeastOneChange() {
        let history = history(10)
        let one = history.held(0).frameByteCount
        #expect(versions(HistoryQuery(.prefix("")), in: history, maxBytes: one * 3) == ([1, 2, 3], true))
        #expect(versions(HistoryQuery(.prefix("")), in: history, maxBytes: 1) == ([1], true))
    }

    @Test func theHorizonIsTheNewestForgottenRevision() {
        let history = history(10, capacity: 4)
        let page = history.page(HistoryQuery(.prefix("")), revision: 10, maxBytes: .max) { _ in true }
        #expect(page.horizon == 6)
        #expect(page.changes.map(\.version) == [7, 8, 9, 10])
        #expect(page.changes.map(\.at) == [1_007, 1_008, 1_009, 1_010])
        #expect(page.revision == 10)
    }
}
