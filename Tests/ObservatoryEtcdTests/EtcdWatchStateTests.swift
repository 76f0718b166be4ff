import Testing

@testable import ObservatoryEtcd

/// The watch's pure state: resume points, compaction, duplicates.
@Suite struct EtcdWatchStateTests {
    private func responses(_ lines: [String]) throws -> [EtcdWatchResponse] {
        try lines.map { line throws(EtcdError) in try EtcdWatchResponse(line: line.bytes) }
    }

    private func events(at revisions: [Int64]) -> EtcdWatchResponse {
        let events = revisions.map { revision in
            EtcdWatchEvent(kind: .put, keyValue: EtcdKeyValue(key: Array("k\(revision)".utf8), modRevision: revision))
        }
        return EtcdWatchResponse(header: EtcdResponseHeader(revision: revisions.max() ?? 0), events: events)
    }

    @Test func capturedStreamBecomesCreatedThenEveryEventInOrder() throws {
        var state = EtcdWatchState(startRevision: 0)
        let updates = try responses(GatewayCaptures.watchStream).compactMap { state.receive($0) }
        guard updates.count == 5, case .created(let revision) = updates[0] else {
            Issue.record("unexpected updates \(updates)")
            return
        }
        #expect(revision == 7)
        let delivered = updates.dropFirst().flatMap { update -> [EtcdWatchEvent] in
            if case .events(let events) = update { return events }
            return []
        }
        #expect(delivered.map(\.revision) == [8, 9, 10, 10, 11])
        #expect(delivered.map(\.keyValue.keyText) == ["w/a", "w/a", "w/b", "w/c", "w/a"])
        #expect(delivered.last?.kind == .delete)
        #expect(delivered.last?.previousKeyValue?.valueText == "2")
        #expect(delivered[1].previousKeyValue?.valueText == "1")
        #expect(delivered[3].keyValue.value.isEmpty)
        #expect(state.lastRevision == 11)
        #expect(state.resumeRevision == 12)
    }

    @Test func watchFromNowResumesAfterItsCreationRevision() {
        var state = EtcdWatchState(startRevision: 0)
        #expect(state.resumeRevision == 0)
        _ = state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 40), created: true))
        #expect(state.resumeRevision == 41)
    }

    @Test func watchFromARevisionResumesThereUntilEventsArrive() {
        var state = EtcdWatchState(startRevision: 5)
        #expect(state.resumeRevision == 5)
        // Creation reports the store's revision, but events 5...40 are still to come.
        _ = state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 40), created: true))
        #expect(state.resumeRevision == 5)
        _ = state.receive(events(at: [6, 7]))
        #expect(state.resumeRevision == 8)
    }

    @Test func watchFromTheFirstRevisionKeepsEveryEventAfterCreation() {
        var state = EtcdWatchState(startRevision: 1)
        _ = state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 2), created: true))
        #expect(state.resumeRevision == 1)
        #expect(state.receive(events(at: [2])) == .events(events(at: [2]).events))
    }

    @Test func eventsAlreadyDeliveredAreDroppedAfterAResume() {
        var state = EtcdWatchState(startRevision: 1)
        _ = state.receive(events(at: [3, 4]))
        // A new stream that starts too early repeats 3 and 4.
        _ = state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 9), created: true))
        #expect(state.receive(events(at: [3, 4])) == nil)
        guard case .events(let fresh) = state.receive(events(at: [4, 5])) else {
            Issue.record("expected fresh events")
            return
        }
        #expect(fresh.map(\.revision) == [5])
    }

    @Test func eventsOfOneRevisionAreDeliveredTogether() {
        var state = EtcdWatchState(startRevision: 1)
        guard case .events(let fresh) = state.receive(events(at: [10, 10, 11])) else {
            Issue.record("expected events")
            return
        }
        #expect(fresh.map(\.revision) == [10, 10, 11])
    }

    @Test func progressNotificationAdvancesTheResumePoint() {
        var state = EtcdWatchState(startRevision: 3)
        #expect(state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 20))) == .progress(revision: 20))
        #expect(state.resumeRevision == 21)
        // An older progress (a member behind) changes nothing.
        #expect(state.receive(EtcdWatchResponse(header: EtcdResponseHeader(revision: 15))) == nil)
        #expect(state.resumeRevision == 21)
    }

    @Test func compactedStartRevisionEndsTheWatchWithTheCompactRevision() throws {
        var state = EtcdWatchState(startRevision: 2)
        let updates = try responses(GatewayCaptures.watchCompacted).compactMap { state.receive($0) }
        #expect(updates == [.created(revision: 11), .compacted(compactRevision: 6)])
        #expect(state.isFinished)
        #expect(state.receive(events(at: [12])) == nil)
    }

    @Test func cancellationWithoutCompactionEndsTheWatchWithItsReason() {
        var state = EtcdWatchState(startRevision: 0)
        let canceled = EtcdWatchResponse(
            header: EtcdResponseHeader(), canceled: true, cancelReason: "permission denied")
        #expect(state.receive(canceled) == .canceled(reason: "permission denied"))
        #expect(state.isFinished)
    }

    @Test func errorLineInTheStreamIsThrownAsItsError() {
        let line = #"{"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}}"#
        #expect {
            _ = try EtcdWatchResponse(line: line.bytes)
        } throws: { error in
            (error as? EtcdError)?.code == .unavailable
        }
    }
}
