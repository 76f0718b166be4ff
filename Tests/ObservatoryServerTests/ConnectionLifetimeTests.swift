import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A connection's output holds it strongly while it is open (no weak reference,
/// see `ConnectionOutput`), and lets go of it when it closes its socket.
@Suite(.timeLimit(.minutes(1))) struct ConnectionLifetimeTests {
    @Test func aClosedConnectionIsLetGoByItsOutputAndFreed() throws {
        let server = try TestServer(configuration: TestServer.inMemoryConfiguration())
        let client = try server.client()
        #expect(try client.request(#"{"op":"ping","id":1}"#)["id"] == 1)
        let output: ConnectionOutput
        weak var closed: Connection?
        do {
            let connection = try #require(server.server.connectionsNow().first)
            output = connection.output
            #expect(output.boundConnection === connection)
            closed = connection
        }
        client.close()
        try waitUntil("the output lets go of its connection") { output.boundConnection == nil }
        try waitUntil("the closed connection is freed") { closed == nil }
    }
}
