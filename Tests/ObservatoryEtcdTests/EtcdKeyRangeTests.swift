import Testing

@testable import ObservatoryEtcd

/// Prefix range ends and endpoint URLs.
@Suite struct EtcdKeyRangeTests {
    @Test func prefixRangeEndIncrementsTheLastByte() {
        #expect(EtcdKeyRange.prefixRangeEnd(Array("w/".utf8)) == Array("w0".utf8))
        #expect(EtcdKeyRange.prefix("abc").rangeEnd == Array("abd".utf8))
    }

    @Test func prefixRangeEndCarriesOverTrailingMaximumBytes() {
        #expect(EtcdKeyRange.prefixRangeEnd([0x61, 0xff]) == [0x62])
        #expect(EtcdKeyRange.prefixRangeEnd([0x61, 0xfe, 0xff, 0xff]) == [0x61, 0xff])
    }

    @Test func prefixOfNothingOrAllMaximumBytesRunsToTheEnd() {
        #expect(EtcdKeyRange.prefixRangeEnd([]) == [0])
        #expect(EtcdKeyRange.prefixRangeEnd([0xff, 0xff]) == [0])
    }

    @Test func singleKeyHasNoRangeEndInItsRequest() {
        let object = EtcdJSON.object(EtcdKeyRange.key("foo").members)
        #expect(object["key"] == "Zm9v")
        #expect(object["range_end"] == nil)
    }

    @Test func endpointURLsParseWithAndWithoutBrackets() {
        #expect(EtcdEndpoint(url: "http://127.0.0.1:2379") == EtcdEndpoint(host: "127.0.0.1", port: 2379))
        #expect(EtcdEndpoint(url: "http://[::1]:2379/") == EtcdEndpoint(host: "::1", port: 2379))
        #expect(EtcdEndpoint(url: "http://[::1]:2379")?.description == "http://[::1]:2379")
        #expect(EtcdEndpoint(host: "::1", port: 2379).hostHeader == "[::1]:2379")
        #expect(EtcdEndpoint(host: "127.0.0.1", port: 2379).hostHeader == "127.0.0.1:2379")
        #expect(EtcdEndpoint(url: "https://127.0.0.1:2379") == nil)
        #expect(EtcdEndpoint(url: "http://127.0.0.1") == nil)
        #expect(EtcdEndpoint(url: "http://127.0.0.1:0") == nil)
    }
}
