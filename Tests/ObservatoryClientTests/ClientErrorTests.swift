import ObservatoryWire
import Testing

@testable import ObservatoryClient

@Suite struct ClientErrorTests {
    @Test func conflictCarriesCodeAndCurrentVersion() {
        let error = ClientError.server(WireError(code: .conflict, message: "version is 9, not 3", currentVersion: 9))
        #expect(error.code == .conflict)
        #expect(error.currentVersion == 9)
        #expect(error.description == "conflict: version is 9, not 3 (current version 9)")
    }

    @Test func nonServerErrorsHaveNoCode() {
        #expect(ClientError.closed.code == nil)
        #expect(ClientError.connectionLost(.pingTimeout).currentVersion == nil)
    }

    @Test func messagesSayWhatHappenedAndWhatToDo() {
        #expect(ClientError.notConnected(.connecting).description.contains("try again later"))
        #expect(ClientError.connectionLost(.serverShutdown).description.contains("may or may not have been applied"))
        #expect(
            ClientError.undecodableValue(key: "k", version: 4, type: "Double", detail: "a string").description
                == "the value of k (version 4) is not a Double: a string; the local value was kept")
    }
}
