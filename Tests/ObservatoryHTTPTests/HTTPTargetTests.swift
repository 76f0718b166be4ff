import Testing

@testable import ObservatoryHTTP

@Suite struct HTTPTargetTests {
    @Test func pathAndQueryAreSplitAndDecoded() throws {
        let target = try HTTPTarget("/v1/keys?prefix=sky%2F&after=a+b&limit=10")
        #expect(target.path == "/v1/keys")
        #expect(target.rawQuery == "prefix=sky%2F&after=a+b&limit=10")
        #expect(target.queryValue(for: "prefix") == "sky/")
        #expect(target.queryValue(for: "after") == "a b")
        #expect(target.queryValue(for: "limit") == "10")
        #expect(target.queryValue(for: "missing") == nil)
    }

    @Test func plusIsASpaceOnlyInTheQuery() throws {
        let target = try HTTPTarget("/a+b%2Bc?q=a+b%2Bc")
        #expect(target.path == "/a+b+c")
        #expect(target.rawPath == "/a+b%2Bc")
        #expect(target.queryValue(for: "q") == "a b+c")
    }

    @Test func queryItemsKeepTheirOrderAndRepeats() throws {
        let target = try HTTPTarget("/x?a=1&b&a=2&&=3")
        #expect(
            target.queryItems == [
                .init(name: "a", value: "1"), .init(name: "b", value: ""), .init(name: "a", value: "2"),
                .init(name: "", value: "3"),
            ])
    }

    @Test func aTargetWithoutQueryHasNone() throws {
        let target = try HTTPTarget("/healthz")
        #expect(target.rawQuery == nil && target.queryItems.isEmpty)
        #expect(try HTTPTarget("/x?").rawQuery == "")
    }

    @Test func escapesDecodeToUTF8() throws {
        #expect(try HTTPTarget("/v1/keys/caf%C3%A9").path == "/v1/keys/café")
        #expect(try HTTPTarget.percentDecoded("a%2fb", plusAsSpace: false) == "a/b")
    }

    @Test func invalidEscapesAreRejected() {
        for target in ["/a%", "/a%2", "/a%zz", "/a%2g", "/x?q=%", "/x?%G1=1"] {
            let error = thrownError { () throws(HTTPError) in try HTTPTarget(target) }
            #expect(error?.code == .invalidTarget, "\(target)")
            #expect(error?.status == .badRequest)
        }
    }

    @Test func invalidUTF8IsRejected() {
        for target in ["/%FF", "/%C3", "/x?q=%C3%28"] {
            #expect(thrownError { () throws(HTTPError) in try HTTPTarget(target) }?.code == .invalidTarget, "\(target)")
        }
    }

    @Test func onlyTheOriginFormIsAccepted() {
        #expect(thrownError { () throws(HTTPError) in try HTTPTarget("http://a/b") }?.code == .invalidTarget)
        #expect(thrownError { () throws(HTTPError) in try HTTPTarget("*") }?.code == .invalidTarget)
        #expect(thrownError { () throws(HTTPError) in try HTTPTarget("") }?.code == .invalidTarget)
    }
}
