import Testing

@testable import ObservatoryClient

@Suite struct ConnectionStateTests {
    @Test func statesDescribeThemselvesWithTheirReason() {
        #expect(ConnectionState.connected.description == "connected")
        #expect(ConnectionState.disconnected(.pingTimeout).description == "disconnected (no reply to a ping in time)")
        #expect(ConnectionState.disconnected(.rejected("unauthenticated: bad token")).isConnected == false)
    }

    @Test func onlyConnectedCountsAsConnected() {
        #expect(ConnectionState.connected.isConnected)
        #expect(!ConnectionState.connecting.isConnected)
        #expect(!ConnectionState.disconnected(.closed).isConnected)
    }
}
