import Testing

@testable import ObservatoryEtcd

/// The gateway's error answers and transport failures become errors a caller can act on.
@Suite struct EtcdErrorTests {
    @Test func leaseNotFoundIsItsOwnCode() {
        let error = EtcdError.gateway(status: 404, body: GatewayCaptures.leaseNotFound.bytes, isWrite: true)
        #expect(error.code == .leaseNotFound)
        #expect(error.grpcCode == 5)
    }

    @Test func compactedRevisionIsItsOwnCode() {
        let error = EtcdError.gateway(status: 400, body: GatewayCaptures.compacted.bytes, isWrite: false)
        #expect(error.code == .compacted)
    }

    @Test func otherRefusalsKeepTheGRPCCodeAndMessage() {
        let error = EtcdError.gateway(status: 400, body: GatewayCaptures.duplicateKey.bytes, isWrite: true)
        #expect(error.code == .requestFailed)
        #expect(error.grpcCode == 3)
        #expect(error.message.contains("duplicate key given in txn request"))
        #expect(!error.mayHaveBeenApplied)
    }

    @Test func noLeaderIsUnavailableAndSafeToRetryElsewhere() {
        let body = #"{"error":"etcdserver: no leader","message":"etcdserver: no leader","code":14}"#
        let error = EtcdError.gateway(status: 503, body: body.bytes, isWrite: true)
        #expect(error.code == .unavailable)
        #expect(!error.mayHaveBeenApplied)
        #expect(error.allowsRetryElsewhere)
    }

    @Test func timedOutWriteIsUnavailableAndMayHaveBeenApplied() {
        let body = #"{"error":"etcdserver: request timed out","message":"etcdserver: request timed out","code":14}"#
        let write = EtcdError.gateway(status: 503, body: body.bytes, isWrite: true)
        #expect(write.code == .unavailable)
        #expect(write.mayHaveBeenApplied)
        #expect(!write.allowsRetryElsewhere)
        let read = EtcdError.gateway(status: 503, body: body.bytes, isWrite: false)
        #expect(!read.mayHaveBeenApplied)
    }

    @Test func deadlineExceededIsUnavailable() {
        let body = #"{"error":"context deadline exceeded","message":"context deadline exceeded","code":4}"#
        let error = EtcdError.gateway(status: 504, body: body.bytes, isWrite: true)
        #expect(error.code == .unavailable)
        #expect(error.mayHaveBeenApplied)
    }

    @Test func streamErrorsNameTheirCodeGRPCCode() {
        let object =
            (try? EtcdJSON.object(from: #"{"grpc_code":14,"http_code":503,"message":"transport is closing"}"#.bytes))
        let error = EtcdError.gateway(object: object ?? [:], isWrite: false)
        #expect(error.code == .unavailable)
        #expect(error.grpcCode == 14)
    }

    /// A watch that etcd refuses before its stream starts answers with the stream's
    /// error shape; read as an unknown refusal, it ended a node's watch, which then
    /// reloaded and closed its observers in the moment an etcd leader died.
    @Test func aWatchRefusedBeforeItsStreamIsReadThroughItsErrorObject() {
        let error = EtcdError.gateway(status: 503, body: GatewayCaptures.watchNoLeader.bytes, isWrite: false)
        #expect(error.code == .unavailable)
        #expect(error.grpcCode == 14)
        #expect(error.message.contains("etcdserver: no leader"))
    }

    @Test func canceledCodeIsCanceled() {
        let body = #"{"error":"context canceled","message":"context canceled","code":1}"#
        #expect(EtcdError.gateway(status: 499, body: body.bytes, isWrite: false).code == .canceled)
    }

    @Test func aPageThatIsNotTheGatewaysIsInvalidOrUnavailable() {
        let notFound = EtcdError.gateway(status: 404, body: "404 page not found\n".bytes, isWrite: false)
        #expect(notFound.code == .invalidResponse)
        #expect(notFound.description.contains("HTTP 404"))
        let badGateway = EtcdError.gateway(status: 502, body: "Bad Gateway".bytes, isWrite: true)
        #expect(badGateway.code == .unavailable)
        #expect(badGateway.mayHaveBeenApplied)
    }

    @Test func transportFailureOfASentWriteMayHaveBeenApplied() {
        let endpoint = EtcdEndpoint(host: "127.0.0.1", port: 2379)
        let sent = EtcdError.transport("recv failed", endpoint: endpoint, requestSent: true, isWrite: true)
        #expect(sent.code == .unavailable)
        #expect(sent.mayHaveBeenApplied)
        #expect(sent.message.contains("http://127.0.0.1:2379"))
        let unsent = EtcdError.transport("connect failed", endpoint: endpoint, requestSent: false, isWrite: true)
        #expect(!unsent.mayHaveBeenApplied)
        #expect(unsent.allowsRetryElsewhere)
    }

    @Test func descriptionNamesCodeAndMessage() {
        let error = EtcdError.gateway(status: 400, body: GatewayCaptures.duplicateKey.bytes, isWrite: true)
        #expect(error.description.hasPrefix("etcd requestFailed: etcd refused the request"))
        #expect(error.description.contains("gRPC code 3"))
    }
}
