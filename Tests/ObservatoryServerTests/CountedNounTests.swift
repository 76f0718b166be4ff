import Testing

@testable import ObservatoryServer

@Suite struct CountedNounTests {
    @Test func oneIsSingularAndEveryOtherCountPlural() {
        #expect(CountedNoun.text(1, "key") == "1 key")
        #expect(CountedNoun.text(0, "key") == "0 keys")
        #expect(CountedNoun.text(2, "file") == "2 files")
    }
}
