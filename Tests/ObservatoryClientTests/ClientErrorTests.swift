import ObservatoryWire
import Testing

@testable import ObservatoryClient

@Suite struct ClientErrorTests {
    @Test func conflictCarriesCodeAndCurrentVersion() {
        let error = ClientError.server(WireError(code: .conflict, message: "version is 9, not 3", currentVersion: 9))
        #expect(error.code == .server)
        #expect(error.serverError?.code == .conflict)
        #expect(error.currentVersion == 9)
        #expect(error.description == "conflict: version is 9, not 3 (current version 9)")
    }

    @Test func nonServerErrorsHaveNoCode() {
        #expect(ClientError.closed.serverError == nil)
        #expect(ClientError.connectionLost(.pingTimeout).currentVersion == nil)
    }

    @Test func messagesSayWhatHappenedAndWhatToDo() {
        #expect(ClientError.notConnected(.connecting).description.contains("try again later"))
        #expect(ClientError.connectionLost(.serverShutdown).description.contains("may or may not have been applied"))
        #expect(
            ClientError.undecodableValue(key: "k", version: 4, type: "Double", detail: "a string").description
                == "the value of k (version 4) is not a Double: a string; the local value was kept")
    }

    @Test func eachErrorCarriesItsDataAsOptionalProperties() {
        let lost = ClientError.connectionLost(.pingTimeout)
        #expect(lost.code == .connectionLost && lost.disconnectReason == .pingTimeout)
        let offline = ClientError.notConnected(.connecting)
        #expect(offline.code == .notConnected && offline.connectionState == .connecting)
        let undecodable = ClientError.undecodableValue(key: "k", version: 4, type: "Double", detail: "a string")
        #expect(undecodable.key == "k" && undecodable.version == 4 && undecodable.typeName == "Double")
        #expect(ClientError.unencodableValue(key: "k", detail: "nan").key == "k")
        #expect(lost.serverError == nil && lost.key == nil && lost.connectionState == nil)
    }

    @Test func errorsWithoutDataMatchTheirConstantsInASwitch() {
        func name(_ error: ClientError) -> String {
            switch error {
            case ClientError.closed: "closed"
            case ClientError.notAMirror: "not a mirror"
            default: "\(error.code)"
            }
        }
        #expect(name(.closed) == "closed")
        #expect(name(.notAMirror) == "not a mirror")
        #expect(name(.timedOut("slow")) == "timedOut")
    }

    @Test func theDescriptionIsTheMessage() {
        let error = ClientError.badReply("nonsense")
        #expect(error.description == error.message)
        #expect(error.message == "the server sent something unexpected: nonsense")
    }

    @Test func aFailedBatchStepsIndexIsCarriedAndNamedInTheMessage() {
        let error = ClientError.server(
            WireError(code: .conflict, message: "queue.7 is at version 41", currentVersion: 41, index: 2))
        #expect(error.operationIndex == 2)
        #expect(error.currentVersion == 41)
        #expect(error.message == "conflict: queue.7 is at version 41 (current version 41) (batch operation 2)")
        #expect(ClientError.server(WireError(code: .notFound, message: "no such key")).operationIndex == nil)
    }
}
