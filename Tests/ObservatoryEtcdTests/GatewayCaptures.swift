/// Bodies etcd 3.4.23's JSON gateway really sent, captured with curl against a
/// one-member cluster, so the decoding tests check what the server sends, not
/// what we think it sends. Keys and values: `foo` is `Zm9v`, `bar` is `YmFy`.
enum GatewayCaptures {
    static let put =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"2","raft_term":"2"}}"#

    static let putWithPrevious =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"3","raft_term":"2"},"prev_kv":{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}}"#

    static let range =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"3","raft_term":"2"},"kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"3","version":"2","value":"YmFy"}],"count":"1"}"#

    static let rangeEmpty =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"3","raft_term":"2"}}"#

    static let rangeWithLease =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"5","raft_term":"2"},"kvs":[{"key":"bDE=","create_revision":"5","mod_revision":"5","version":"1","value":"eA==","lease":"4111120224426215951"}],"count":"1"}"#

    static let deleteWithPrevious =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"4","raft_term":"2"},"deleted":"1","prev_kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"3","version":"2","value":"YmFy"}]}"#

    static let deleteNothing =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"4","raft_term":"2"}}"#

    static let leaseGrant =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"3","raft_term":"2"},"ID":"4111120224426215946","TTL":"5"}"#

    static let leaseKeepAlive =
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"5","raft_term":"2"},"ID":"4111120224426215951","TTL":"30"}}"#

    /// A keep-alive of a lease that expired: HTTP 200, and no TTL.
    static let leaseKeepAliveExpired =
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"6","raft_term":"2"},"ID":"4111120224426215951"}}"#

    static let leaseRevoke =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"6","raft_term":"2"}}"#

    static let status =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"3","raft_term":"2"},"version":"3.4.23","dbSize":"20480","leader":"13668033151171901709","raftIndex":"8","raftTerm":"2","raftAppliedIndex":"8","dbSizeInUse":"16384"}"#

    static let transactionSucceeded =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"7","raft_term":"2"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"7"}}}]}"#

    static let transactionFailed =
        #"{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"7","raft_term":"2"},"responses":[{"response_range":{"header":{"revision":"7"},"kvs":[{"key":"dDE=","create_revision":"7","mod_revision":"7","version":"1","value":"djE="}],"count":"1"}},{"response_delete_range":{"header":{"revision":"7"}}}]}"#

    /// HTTP 404.
    static let leaseNotFound =
        #"{"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5}"#

    /// HTTP 400.
    static let compacted =
        #"{"error":"etcdserver: mvcc: required revision has been compacted","message":"etcdserver: mvcc: required revision has been compacted","code":11}"#

    /// HTTP 400.
    static let duplicateKey =
        #"{"error":"etcdserver: duplicate key given in txn request","message":"etcdserver: duplicate key given in txn request","code":3}"#

    /// HTTP 400: the gateway could not parse the request.
    static let badJSON =
        #"{"error":"invalid character 'b' looking for beginning of object key string","message":"invalid character 'b' looking for beginning of object key string","code":3}"#

    /// HTTP 503: a watch asked with `Grpc-Metadata-Hasleader: true` of a member
    /// without a leader (the last of three, two killed); a stream's error shape, at
    /// the top of the answer since no message came before it.
    static let watchNoLeader =
        #"{"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}}"#

    /// A watch stream of the prefix `w/` (`dy8=`): created, a put, a change, a
    /// transaction's two puts (one with an empty value), a delete.
    static let watchStream = [
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"7","raft_term":"2"},"created":true}}"#,
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"8","raft_term":"2"},"events":[{"kv":{"key":"dy9h","create_revision":"8","mod_revision":"8","version":"1","value":"MQ=="}}]}}"#,
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"9","raft_term":"2"},"events":[{"kv":{"key":"dy9h","create_revision":"8","mod_revision":"9","version":"2","value":"Mg=="},"prev_kv":{"key":"dy9h","create_revision":"8","mod_revision":"8","version":"1","value":"MQ=="}}]}}"#,
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"10","raft_term":"2"},"events":[{"kv":{"key":"dy9i","create_revision":"10","mod_revision":"10","version":"1","value":"Mw=="}},{"kv":{"key":"dy9j","create_revision":"10","mod_revision":"10","version":"1"}}]}}"#,
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"11","raft_term":"2"},"events":[{"type":"DELETE","kv":{"key":"dy9h","mod_revision":"11"},"prev_kv":{"key":"dy9h","create_revision":"8","mod_revision":"9","version":"2","value":"Mg=="}}]}}"#,
    ]

    /// A watch from revision 2 after a compaction at 6: created, then canceled.
    static let watchCompacted = [
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"11","raft_term":"2"},"created":true}}"#,
        #"{"result":{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","raft_term":"2"},"canceled":true,"compact_revision":"6"}}"#,
    ]

    /// The cluster's id, as the headers above carry it.
    static let clusterID: UInt64 = 15_118_495_548_433_857_066
    /// The answering member's id.
    static let memberID: UInt64 = 13_668_033_151_171_901_709
}

extension String {
    /// The string's UTF-8 bytes, as a body arrives.
    var bytes: [UInt8] { Array(utf8) }
}
