extension Operation where Value: RequestValue {
    /// Decodes the fields of an op from a request whose `op` was `kind`, with
    /// the values of a `set` and of a batch's sets made as `Value` (see
    /// ``RequestValue``): the one way every request is decoded.
    ///
    /// - Parameter frameByteCount: The size of the frame the fields were read
    ///   from, if known; it lets small frames skip measuring the value.
    static func decode(
        _ kind: OperationKind, from fields: FieldReader<RequestFields>, limits: RequestLimits, frameByteCount: Int?
    ) throws(WireError) -> Operation {
        switch kind {
        case .hello:
            return .hello(
                name: try fields.helloName(),
                token: try fields.optionalString(.token),
                protocolVersion: try fields.optionalInteger(.protocolVersion, minimum: 1) ?? 1
            )
        case .get:
            return .get(key: try fields.key())
        case .set:
            // Read in the order that decides which error is reported first; the value's size last.
            let key = try fields.key()
            let value: Value = try fields.sentValue()
            let ifVersion = try fields.optionalInteger(.ifVersion, minimum: 0)
            let sessionBound = try fields.optionalBool(.sessionBound) ?? false
            let requestId = try fields.requestId()
            let ttl = try fields.ttl()
            try Value.checkSize(of: value, limit: limits.maxValueBytes, frameByteCount: frameByteCount)
            return .set(
                key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId,
                ttl: ttl)
        case .delete:
            return .delete(
                key: try fields.key(), ifVersion: try fields.optionalInteger(.ifVersion, minimum: 0),
                requestId: try fields.requestId())
        case .observe:
            return .observe(try fields.target(), from: try fields.resumePoint(), slow: try fields.slowPolicy())
        case .unobserve:
            return .unobserve(try fields.target())
        case .list:
            let prefix = try fields.optionalString(.prefix) ?? ""
            try KeyRules.validate(prefix: prefix)
            let after = try fields.optionalString(.after)
            if let after { try KeyRules.validate(key: after) }
            return .list(prefix: prefix, after: after, limit: try fields.optionalInteger(.limit, minimum: 1))
        case .ping:
            return .ping
        case .history:
            return .history(try HistoryQuery.decode(from: fields, target: try fields.target()))
        case .batch:
            return .batch(
                operations: try BatchOperation<Value>.decodeAll(
                    from: fields, limits: limits, frameByteCount: frameByteCount),
                requestId: try fields.requestId())
        }
    }
}

extension Operation where Value == EncodedJSON {
    /// The operation with its values decoded into trees: what
    /// `Request<JSONValue>.decode(frame:limits:)` returns for the frame that
    /// `Request<EncodedJSON>.decode(frame:limits:)` read this from.
    public func decoded() -> Operation<JSONValue> {
        switch self {
        case .hello(let name, let token, let protocolVersion):
            return .hello(name: name, token: token, protocolVersion: protocolVersion)
        case .get(let key): return .get(key: key)
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl):
            return .set(
                key: key, value: value.decoded(), ifVersion: ifVersion, sessionBound: sessionBound,
                requestId: requestId, ttl: ttl)
        case .delete(let key, let ifVersion, let requestId):
            return .delete(key: key, ifVersion: ifVersion, requestId: requestId)
        case .observe(let target, let resumePoint, let slow): return .observe(target, from: resumePoint, slow: slow)
        case .unobserve(let target): return .unobserve(target)
        case .list(let prefix, let after, let limit): return .list(prefix: prefix, after: after, limit: limit)
        case .ping: return .ping
        case .history(let query): return .history(query)
        case .batch(let operations, let requestId):
            return .batch(operations: operations.map { $0.decoded() }, requestId: requestId)
        }
    }
}
