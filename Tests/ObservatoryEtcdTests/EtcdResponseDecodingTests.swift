import Testing

@testable import ObservatoryEtcd

/// Every kind of answer, decoded from what etcd 3.4's gateway really sent.
@Suite struct EtcdResponseDecodingTests {
    private func object(_ text: String) throws -> EtcdJSON.Object {
        try EtcdJSON.object(from: text.bytes)
    }

    @Test func headerIdentifiersUseTheWholeUnsignedRange() throws {
        let result = try EtcdPutResult(json: object(GatewayCaptures.put))
        #expect(result.header.clusterID == GatewayCaptures.clusterID)
        #expect(result.header.memberID == GatewayCaptures.memberID)
        #expect(result.header.revision == 2)
        #expect(result.header.raftTerm == 2)
        #expect(result.previousKeyValue == nil)
    }

    @Test func putReturnsThePreviousKeyValueWithItsRevisions() throws {
        let result = try EtcdPutResult(json: object(GatewayCaptures.putWithPrevious))
        let expected = EtcdKeyValue(
            key: Array("foo".utf8), value: Array("bar".utf8), createRevision: 2, modRevision: 2, version: 1)
        #expect(result.previousKeyValue == expected)
    }

    @Test func rangeDecodesKeysValuesAndCount() throws {
        let result = try EtcdRangeResult(json: object(GatewayCaptures.range))
        #expect(result.count == 1)
        #expect(result.more == false)
        #expect(result.keyValues.map(\.keyText) == ["foo"])
        #expect(result.keyValues.first?.valueText == "bar")
        #expect(result.keyValues.first?.modRevision == 3)
        #expect(result.keyValues.first?.version == 2)
    }

    @Test func emptyRangeHasNoKeysAndCountZero() throws {
        let result = try EtcdRangeResult(json: object(GatewayCaptures.rangeEmpty))
        #expect(result.keyValues.isEmpty)
        #expect(result.count == 0)
        #expect(result.header.revision == 3)
    }

    @Test func rangeCarriesTheLeaseOfAKey() throws {
        let result = try EtcdRangeResult(json: object(GatewayCaptures.rangeWithLease))
        #expect(result.keyValues.first?.lease == 4_111_120_224_426_215_951)
        #expect(result.keyValues.first?.value == [UInt8(ascii: "x")])
    }

    @Test func deleteCountsAndReturnsWhatItDeleted() throws {
        let result = try EtcdDeleteResult(json: object(GatewayCaptures.deleteWithPrevious))
        #expect(result.deleted == 1)
        #expect(result.previousKeyValues.map(\.keyText) == ["foo"])
        let nothing = try EtcdDeleteResult(json: object(GatewayCaptures.deleteNothing))
        #expect(nothing.deleted == 0)
        #expect(nothing.previousKeyValues.isEmpty)
    }

    @Test func leaseGrantGivesIdentifierAndTimeToLive() throws {
        let lease = try EtcdLease(json: object(GatewayCaptures.leaseGrant))
        #expect(lease.id == 4_111_120_224_426_215_946)
        #expect(lease.ttl == 5)
    }

    @Test func keepAliveIsUnwrappedFromResult() throws {
        let lease = try EtcdLease(keepAliveAnswer: object(GatewayCaptures.leaseKeepAlive))
        #expect(lease.id == 4_111_120_224_426_215_951)
        #expect(lease.ttl == 30)
    }

    @Test func keepAliveWithoutTimeToLiveMeansTheLeaseIsGone() throws {
        let answer = try object(GatewayCaptures.leaseKeepAliveExpired)
        #expect {
            _ = try EtcdLease(keepAliveAnswer: answer)
        } throws: { error in
            (error as? EtcdError)?.code == .leaseNotFound
        }
    }

    @Test func statusGivesClusterLeaderAndRevision() throws {
        let status = try EtcdStatus(json: object(GatewayCaptures.status))
        #expect(status.clusterID == GatewayCaptures.clusterID)
        #expect(status.leader == GatewayCaptures.memberID)
        #expect(status.revision == 3)
        #expect(status.version == "3.4.23")
        #expect(status.raftIndex == 8)
        #expect(status.databaseSize == 20_480)
    }

    @Test func succeededTransactionHasItsPutResponse() throws {
        let result = try EtcdTransactionResult(json: object(GatewayCaptures.transactionSucceeded))
        #expect(result.succeeded)
        #expect(result.header.revision == 7)
        guard case .put(let put) = result.responses.first else {
            Issue.record("expected a put response, got \(result.responses)")
            return
        }
        #expect(put.header.revision == 7)
        #expect(put.header.clusterID == 0)
    }

    @Test func failedTransactionHasItsFailureBranchResponses() throws {
        let result = try EtcdTransactionResult(json: object(GatewayCaptures.transactionFailed))
        #expect(!result.succeeded)
        #expect(result.responses.count == 2)
        guard case .range(let range) = result.responses.first, case .deleteRange(let delete) = result.responses.last
        else {
            Issue.record("expected a range then a delete, got \(result.responses)")
            return
        }
        #expect(range.keyValues.map(\.valueText) == ["v1"])
        #expect(delete.deleted == 0)
    }

    @Test func numbersAreAcceptedAsJSONNumbersToo() throws {
        let result = try EtcdRangeResult(json: object(#"{"header":{"revision":12},"count":3,"more":true}"#))
        #expect(result.header.revision == 12)
        #expect(result.count == 3)
        #expect(result.more)
    }

    @Test func malformedFieldsAreInvalidResponses() throws {
        let badBase64 = try object(#"{"kvs":[{"key":"%%%"}]}"#)
        #expect(throws: EtcdError.self) { _ = try EtcdRangeResult(json: badBase64) }
        let badNumber = try object(#"{"header":{"revision":"twelve"}}"#)
        #expect(throws: EtcdError.self) { _ = try EtcdRangeResult(json: badNumber) }
        #expect {
            _ = try EtcdJSON.object(from: "not json".bytes)
        } throws: { error in
            (error as? EtcdError)?.code == .invalidResponse
        }
    }
}
