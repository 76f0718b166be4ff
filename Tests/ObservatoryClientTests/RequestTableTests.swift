import Testing

@testable import ObservatoryClient

@Suite struct RequestTableTests {
    @Test func idsGrowFromTheFirstIdentifier() {
        var table = RequestTable<String>(firstIdentifier: 5)
        #expect(table.register("a") == 5)
        #expect(table.register("b") == 6)
        #expect(table.count == 2)
    }

    @Test func replyIsMatchedToItsRequestByIdOnlyOnce() {
        var table = RequestTable<String>()
        let first = table.register("first")
        let second = table.register("second")
        #expect(table.complete(second) == "second")
        #expect(table.complete(second) == nil)
        #expect(table.complete(first) == "first")
        #expect(table.count == 0)
    }

    @Test func unknownIdMatchesNothing() {
        var table = RequestTable<String>()
        _ = table.register("only")
        #expect(table.complete(99) == nil)
        #expect(table.count == 1)
    }

    @Test func removeAllReturnsWaitingRequestsOldestFirstAndKeepsIdsGrowing() {
        var table = RequestTable<String>()
        for name in ["a", "b", "c"] { _ = table.register(name) }
        _ = table.complete(2)
        #expect(table.removeAll() == ["a", "c"])
        #expect(table.count == 0)
        #expect(table.register("d") == 4)
    }
}
