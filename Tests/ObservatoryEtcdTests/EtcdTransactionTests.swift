import Foundation
import Testing

@testable import ObservatoryEtcd

/// Requests are encoded as the gateway expects: base64 bytes, 64-bit numbers as
/// strings, enum names as strings, zero values left out.
@Suite struct EtcdTransactionTests {
    private func text(_ object: EtcdJSON.Object) -> String {
        String(decoding: EtcdJSON.bytes(of: object), as: UTF8.self)
    }

    @Test func createOnlyTransactionComparesCreateRevisionWithZero() {
        let transaction = EtcdTransaction(
            compares: [.absent(Array("t1".utf8))],
            success: [.put(key: Array("t1".utf8), value: Array("v1".utf8), lease: 7, returnPrevious: true)],
            failure: [.range(.key("t1"))])
        #expect(
            text(transaction.requestObject)
                == #"{"compare":[{"create_revision":"0","key":"dDE=","result":"EQUAL","target":"CREATE"}],"#
                + #""failure":[{"request_range":{"key":"dDE="}}],"#
                + #""success":[{"request_put":{"key":"dDE=","lease":"7","prev_kv":true,"value":"djE="}}]}"#)
    }

    @Test func everyCompareTargetAndRelationIsEncoded() {
        let key = Array("k".utf8)
        let compares: [(EtcdCompare, String)] = [
            (
                EtcdCompare(key: key, .modRevision(9), .notEqual),
                #""mod_revision":"9","result":"NOT_EQUAL","target":"MOD""#
            ),
            (EtcdCompare(key: key, .version(2), .less), #""result":"LESS","target":"VERSION","version":"2""#),
            (EtcdCompare(key: key, .value([1, 2]), .greater), #""result":"GREATER","target":"VALUE","value":"AQI=""#),
            (EtcdCompare(key: key, .lease(5), .equal), #""lease":"5","result":"EQUAL","target":"LEASE""#),
            (.unchanged(key, since: 4), #""mod_revision":"4","result":"EQUAL","target":"MOD""#),
        ]
        for (compare, fields) in compares {
            #expect(text(compare.requestObject).contains(fields), "\(compare)")
        }
    }

    @Test func deleteAndRangeOperationsCarryTheirOptions() {
        let delete = EtcdOperation.deleteRange(.prefix("w/"), returnPrevious: true)
        #expect(
            text(delete.transactionObject)
                == #"{"request_delete_range":{"key":"dy8=","prev_kv":true,"range_end":"dzA="}}"#)
        let range = EtcdOperation.range(.prefix("w/"), revision: 12, limit: 3)
        #expect(text(range.requestObject) == #"{"key":"dy8=","limit":"3","range_end":"dzA=","revision":"12"}"#)
        #expect(!range.isWrite)
        #expect(delete.isWrite)
    }

    @Test func transactionThatOnlyReadsIsNotAWrite() {
        #expect(!EtcdTransaction(success: [.range(.key("a"))], failure: [.range(.key("b"))]).isWrite)
        #expect(EtcdTransaction(success: [.range(.key("a"))], failure: [.deleteRange(.key("b"))]).isWrite)
    }

    @Test func nestedTransactionIsARequestTxnStepAndWritesWhenItsBranchesDo() {
        let inner = EtcdTransaction(
            compares: [.absent(Array("n".utf8))], success: [.put(key: Array("n".utf8), value: Array("v".utf8))],
            failure: [.range(.key("n"))])
        let outer = EtcdTransaction(success: [.transaction(inner)])
        #expect(
            text(outer.requestObject)
                == #"{"success":[{"request_txn":{"compare":[{"create_revision":"0","key":"bg==","result":"EQUAL","#
                + #""target":"CREATE"}],"failure":[{"request_range":{"key":"bg=="}}],"#
                + #""success":[{"request_put":{"key":"bg==","value":"dg=="}}]}}]}"#)
        #expect(outer.isWrite)
        let reading = EtcdTransaction(success: [.transaction(EtcdTransaction(success: [.range(.key("n"))]))])
        #expect(!reading.isWrite)
    }

    @Test func watchCreateRequestStartsAtTheResumePoint() {
        let request = EtcdWatchRequest(range: .prefix("w/"), startRevision: 5)
        #expect(
            text(request.createRequestObject(startRevision: 12))
                == #"{"create_request":{"key":"dy8=","prev_kv":true,"progress_notify":true,"range_end":"dzA=","start_revision":"12"}}"#
        )
        let fromNow = EtcdWatchRequest(range: .key("a"), previousKeyValues: false, progressNotify: false)
        #expect(text(fromNow.createRequestObject(startRevision: 0)) == #"{"create_request":{"key":"YQ=="}}"#)
    }
}
