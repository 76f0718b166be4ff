import Observatory
import Testing

@testable import ObservatoryClient

/// The echo filter: a mirror sends the program's changes of its `Var`, never its own.
extension ClientMachineTests {
    /// Stands in for the client, which authors a resync's update of a missing key.
    final class StandInClient: Sendable {}

    @Test func changesByARemoteAuthorAResetOrTheClientAreTheMirrorsOwn() {
        let client = StandInClient()
        let remote = Author(name: "alice", session: "s1")
        #expect(Machine.origin(ofChangeBy: remote, client: client) == .server)
        #expect(Machine.origin(ofChangeBy: Reset(reason: "a new epoch"), client: client) == .server)
        #expect(Machine.origin(ofChangeBy: client, client: client) == .server)
    }

    @Test func changesByTheVarItselfOrAnAuthorOfTheProgramAreWritesToSend() {
        let client = StandInClient()
        let variable = Var(1)
        let programAuthor = StandInClient()
        #expect(Machine.origin(ofChangeBy: variable, client: client) == .program)
        #expect(Machine.origin(ofChangeBy: programAuthor, client: client) == .program)
        #expect(Machine.origin(ofChangeBy: client, client: nil) == .program, "another client is no author of ours")
    }
}
