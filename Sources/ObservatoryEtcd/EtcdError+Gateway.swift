/// How the gateway's error answers and the transport's failures become `EtcdError`s.
extension EtcdError {
    /// etcd's messages that mean "this member cannot serve now" (no leader, a
    /// lost quorum, an overloaded or stopping member), with whether a write that
    /// got it may still have been applied.
    ///
    /// The timeouts come after a proposal was made, so the write may yet commit;
    /// the others refuse before proposing anything.
    private static let unavailableMessages: [(text: String, mayHaveBeenApplied: Bool)] = [
        ("etcdserver: request timed out", true),
        ("etcdserver: leader changed", true),
        ("etcdserver: no leader", false),
        ("etcdserver: not capable", false),
        ("etcdserver: too many requests", false),
        ("etcdserver: server stopped", false),
        ("etcdserver: not a primary lessor", false),
        ("etcdserver: timed out waiting for read index response", false),
    ]

    /// The gRPC codes that mean the service could not answer: DEADLINE_EXCEEDED
    /// (4), RESOURCE_EXHAUSTED (8) and UNAVAILABLE (14).
    private static let unavailableCodes: Set<Int> = [4, 8, 14]

    /// Maps the gateway's error answer, `{"error": …, "code": …, "message": …}`
    /// with an HTTP status that is not 200, to an error.
    ///
    /// - Parameters:
    ///   - status: the HTTP status code.
    ///   - body: the answer's body.
    ///   - isWrite: whether the request changes data, so that a timeout says the
    ///     write may have been applied.
    static func gateway(status: Int, body: [UInt8], isWrite: Bool) -> EtcdError {
        guard let object = try? EtcdJSON.object(from: body) else {
            // Not the gateway's JSON: a proxy's or a server's own page.
            let detail = "HTTP \(status): \(EtcdJSON.preview(of: body))"
            if status >= 500 { return .unavailable("the endpoint failed (\(detail))", mayHaveBeenApplied: isWrite) }
            return .invalidResponse("an error that is not etcd's (\(detail)); is the endpoint etcd's client URL?")
        }
        // A stream refused before its first message (a watch on a member without a
        // leader) answers in the stream's shape: `{"error": {"grpc_code": …, …}}`.
        if case .object(let streamError)? = object["error"] {
            return gateway(object: streamError, isWrite: isWrite)
        }
        return gateway(object: object, isWrite: isWrite)
    }

    /// Maps an error object of the gateway (also found inside a watch stream).
    static func gateway(object: EtcdJSON.Object, isWrite: Bool) -> EtcdError {
        // A stream's error names its code `grpc_code`; a plain answer's, `code`.
        let plainCode = (try? EtcdJSON.integer(object, "code")) ?? 0
        let streamCode = (try? EtcdJSON.integer(object, "grpc_code")) ?? 0
        let code: Int? = plainCode != 0 ? Int(plainCode) : streamCode != 0 ? Int(streamCode) : nil
        var message = (try? EtcdJSON.string(object, "message")) ?? ""
        if message.isEmpty { message = (try? EtcdJSON.string(object, "error")) ?? "" }
        if message.isEmpty { message = "no message" }
        if message.contains("required revision has been compacted") {
            return .compacted(compactRevision: nil)
        }
        if message.contains("requested lease not found") {
            return EtcdError(
                code: .leaseNotFound, message: "the lease does not exist: it expired or was revoked (\(message))",
                grpcCode: code)
        }
        if let known = unavailableMessages.first(where: { message.hasPrefix($0.text) }) {
            return EtcdError(
                code: .unavailable, message: "etcd cannot serve the request now: \(message)", grpcCode: code,
                mayHaveBeenApplied: isWrite && known.mayHaveBeenApplied)
        }
        if let code, unavailableCodes.contains(code) {
            return EtcdError(
                code: .unavailable, message: "etcd cannot serve the request now: \(message)", grpcCode: code,
                mayHaveBeenApplied: isWrite && code == 4)
        }
        if code == 1 {
            return EtcdError(code: .canceled, message: "etcd canceled the request: \(message)", grpcCode: code)
        }
        return EtcdError(code: .requestFailed, message: "etcd refused the request: \(message)", grpcCode: code)
    }

    /// Maps a failure to reach or talk to `endpoint`.
    ///
    /// - Parameters:
    ///   - reason: what failed, such as the socket error's description.
    ///   - requestSent: whether any of the request's bytes had left, so that the
    ///     member may have received it.
    ///   - isWrite: whether the request changes data.
    static func transport(_ reason: String, endpoint: EtcdEndpoint, requestSent: Bool, isWrite: Bool) -> EtcdError {
        .unavailable(
            "cannot reach etcd at \(endpoint): \(reason)", mayHaveBeenApplied: requestSent && isWrite)
    }

    /// Whether another member may be asked the same request without risk of
    /// applying a write twice: the failure is unavailability and nothing was applied.
    var allowsRetryElsewhere: Bool {
        code == .unavailable && !mayHaveBeenApplied
    }
}
