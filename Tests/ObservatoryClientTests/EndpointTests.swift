import ObservatoryClient
import Testing

@Suite struct EndpointTests {
    @Test func hostAndPortParse() throws {
        #expect(try Endpoint(parsing: "a.local:7071") == Endpoint(host: "a.local", port: 7071))
    }

    @Test func aHostAloneTakesTheDefaultPort() throws {
        #expect(try Endpoint(parsing: "a.local", defaultPort: 7072) == Endpoint(host: "a.local", port: 7072))
    }

    @Test func aBracketedIPv6AddressKeepsItsColons() throws {
        let endpoint = try Endpoint(parsing: "[::1]:7070")
        #expect(endpoint == Endpoint(host: "::1", port: 7070))
        #expect(endpoint.description == "[::1]:7070")
    }

    @Test func aBadPortOrAnEmptyHostIsAnError() {
        #expect(throws: Endpoint.ParseError.self) { try Endpoint(parsing: "a:0") }
        #expect(throws: Endpoint.ParseError.self) { try Endpoint(parsing: "a:http") }
        #expect(throws: Endpoint.ParseError.self) { try Endpoint(parsing: ":7070") }
    }

    @Test func aConfigurationOfHostAndPortHasOneEndpoint() {
        var configuration = ClientConfiguration(host: "a", port: 1)
        #expect(configuration.endpoints == [Endpoint(host: "a", port: 1)])
        configuration.port = 2
        #expect(configuration.endpoints == [Endpoint(host: "a", port: 2)])
        configuration.endpoints = []
        #expect(configuration.endpoints == [Endpoint(host: "127.0.0.1", port: 7070)], "never none")
    }
}
