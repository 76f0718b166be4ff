import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndReturnsTheFirstValue() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-A": "1", "x-a": "2"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["X-A"] == "1")
        #expect(headers["missing"] == nil)
    }

    @Test func valuesForANameComeInOrderWhateverTheirCase() {
        let headers: HTTPHeaders = ["Set-Cookie": "a", "Other": "x", "set-cookie": "b"]
        #expect(headers.values(for: "SET-COOKIE") == ["a", "b"])
        #expect(headers.values(for: "nothing").isEmpty)
    }

    @Test func addKeepsEarlierFieldsAndReplaceRemovesThem() {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "a")
        headers.add(name: "accept", value: "b")
        #expect(headers.count == 2)
        headers.replace(name: "ACCEPT", value: "c")
        #expect(headers.values(for: "accept") == ["c"])
        #expect(headers.map(\.name) == ["ACCEPT"])
    }

    @Test func fieldsKeepTheirOrderAndSpelling() {
        var headers: HTTPHeaders = ["Host": "h", "X-One": "1"]
        headers.add(name: "x-two", value: "2")
        #expect(headers.map(\.name) == ["Host", "X-One", "x-two"])
        headers.remove(name: "x-one")
        #expect(headers.map(\.name) == ["Host", "x-two"])
        #expect(!headers.contains(name: "X-ONE"))
    }

    @Test func listElementsSplitOnCommasAcrossFields() {
        let headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "connection": " ,close "]
        #expect(headers.listElements(for: "Connection") == ["keep-alive", "Upgrade", "close"])
        #expect(headers.listContains("upgrade", for: "connection"))
        #expect(!headers.listContains("upgrad", for: "connection"))
    }

    @Test func keepAliveFollowsTheVersionAndConnectionHeader() {
        #expect(HTTPHeaders().keepAlive(for: .http1Point1))
        #expect(!HTTPHeaders().keepAlive(for: .http1Point0))
        #expect(!(["Connection": "Close"] as HTTPHeaders).keepAlive(for: .http1Point1))
        #expect((["Connection": "Keep-Alive"] as HTTPHeaders).keepAlive(for: .http1Point0))
        #expect(!(["Connection": "keep-alive, close"] as HTTPHeaders).keepAlive(for: .http1Point0))
    }

    @Test func namesMatchOnlyWhenEqualIgnoringASCIICase() {
        #expect(HTTPHeaders.nameMatches("Content-Length", "content-length"))
        #expect(!HTTPHeaders.nameMatches("Content-Length", "content-lengt"))
        #expect(!HTTPHeaders.nameMatches("a", "ab"))
        #expect(HTTPHeaders.nameMatches("", ""))
    }
}
