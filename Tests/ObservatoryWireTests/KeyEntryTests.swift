import Testing

@testable import ObservatoryWire

/// One entry type for both representations of a value: what each end knows of an expiry.
@Suite struct KeyEntryTests {
    @Test func anEntryKeepsTheSecondsAMessageCarried() {
        var entry = ValueEntry(key: "k", value: 1, version: 3, author: "a", session: "s", ttl: 30)
        #expect(entry.ttl == 30)
        #expect(entry.expiry == nil)
        entry.ttl = nil
        #expect(entry.expiration == nil)
    }

    @Test func anEntryAServerKeepsSaysTheSecondsItsDeadlineLeaves() {
        let now = KeyExpiry.wallMilliseconds()
        let expiry = KeyExpiry(seconds: 30, deadline: now + 20_000, author: "a", session: "s")
        let entry = RawValueEntry(key: "k", value: 1, version: 3, author: "a", session: "s", expiry: expiry)
        #expect(entry.expiry === expiry)
        #expect(entry.ttl == 20 || entry.ttl == 19)
        #expect(entry != RawValueEntry(key: "k", value: 1, version: 3, author: "a", session: "s", ttl: 20))
    }

    @Test func anEntrysExpiryTakesOneWordEitherWay() {
        #expect(MemoryLayout<EntryExpiration?>.size == MemoryLayout<KeyExpiry?>.size)
    }
}
