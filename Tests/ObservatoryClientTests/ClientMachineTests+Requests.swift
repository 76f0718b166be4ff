import Observatory
import Testing

@testable import ObservatoryClient

/// The request table in the machine: ids, replies matched once, requests that fail with their link.
extension ClientMachineTests {
    /// A completion that notes `name` when it is called.
    func noting(_ name: String, in journal: Locked<[String]>) -> RequestCompletion {
        { _ in journal.withLock { $0.append(name) } }
    }

    @Test func requestsOnTheCurrentLinkTakeGrowingIds() {
        var (machine, link) = synchronized()
        let journal = Locked<[String]>([])
        #expect(machine.register(noting("a", in: journal), on: link) == 1)
        #expect(machine.register(noting("b", in: journal), on: link) == 2)
        #expect(machine.requests.count == 2)
    }

    @Test func aReplyCompletesItsRequestOnlyOnce() {
        var (machine, link) = synchronized()
        let journal = Locked<[String]>([])
        let identifier = machine.register(noting("a", in: journal), on: link) ?? 0
        guard case .complete(let completion) = machine.replied(identifier, on: link) else {
            Issue.record("the reply should complete its request")
            return
        }
        completion(.failure(.closed))
        #expect(journal.value == ["a"])
        #expect(
            machine.replied(identifier, on: link)
                == .end(link, .protocolError("a reply to request \(identifier), which is not waiting")))
    }

    @Test func aReplyToNoWaitingRequestEndsTheLinkAsAProtocolError() {
        var (machine, link) = synchronized()
        #expect(
            machine.replied(77, on: link) == .end(link, .protocolError("a reply to request 77, which is not waiting")))
    }

    @Test func anEndedOrOldLinkTakesNoRequest() {
        var (machine, link) = synchronized()
        let journal = Locked<[String]>([])
        link.ended.withLock { $0 = true }
        #expect(machine.register(noting("a", in: journal), on: link) == nil)
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.register(noting("b", in: journal), on: link) == nil)
        #expect(machine.replied(1, on: link) == .none, "an old link's frames are not looked at")
    }

    @Test func theRequestsOfAnEndedLinkAreHandedOutOldestFirst() {
        var (machine, link) = synchronized()
        let journal = Locked<[String]>([])
        for name in ["a", "b", "c"] { _ = machine.register(noting(name, in: journal), on: link) }
        let ended = machine.linkEnded(link, reason: .closedByServer)
        for completion in ended?.requests ?? [] { completion(.failure(.connectionLost(.closedByServer))) }
        #expect(journal.value == ["a", "b", "c"])
        #expect(machine.requests.count == 0)
    }

    @Test func idsKeepGrowingAcrossLinksSoALateReplyIsNeverTakenForANewRequest() {
        var (machine, first) = synchronized()
        let journal = Locked<[String]>([])
        #expect(machine.register(noting("a", in: journal), on: first) == 1)
        _ = machine.linkEnded(first, reason: .closedByServer)
        let second = StandInLink()
        _ = machine.connecting()
        _ = machine.open(second)
        #expect(machine.register(noting("b", in: journal), on: second) == 2)
    }

    @Test func closingHandsOverTheWaitingRequests() {
        var (machine, link) = synchronized()
        let journal = Locked<[String]>([])
        _ = machine.register(noting("a", in: journal), on: link)
        #expect(machine.close().requests.count == 1)
        #expect(machine.register(noting("b", in: journal), on: link) == nil)
    }
}
