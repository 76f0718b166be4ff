// The fields that several requests share, read with their protocol rules: the
// key, the value, `requestId`, `ttl` and the others of docs/protocol.md.
extension FieldReader where Source == RequestFields {
    /// The required `key`, checked by ``KeyRules``. A key sent as plain printable
    /// ASCII (the usual kind) is checked on its bytes in the frame, and the
    /// `String` is made from them once.
    func key() throws(WireError) -> String {
        if let bytes = source.plainString(.key), bytes.isPlainKey {
            return String(decoding: bytes, as: UTF8.self)
        }
        let key = try requiredString(.key)
        try KeyRules.validate(key: key)
        return key
    }

    /// The required `value`, made as `Value` from the bytes it was sent as (or
    /// from its tree, for fields of an already parsed object).
    func sentValue<Value: RequestValue>() throws(WireError) -> Value {
        guard let value: Value = source.sentValue() else {
            throw failure(.value, Self.requiredValueProblem)
        }
        return value
    }

    /// A `requestId` is a string of 1 to ``RequestLimits/maxRequestIdBytes`` bytes, or absent.
    func requestId() throws(WireError) -> String? {
        guard let requestId = try optionalString(.requestId) else { return nil }
        guard (1...RequestLimits.maxRequestIdBytes).contains(requestId.utf8.count) else {
            throw failure(
                .requestId, "must be a string of 1 to \(RequestLimits.maxRequestIdBytes) bytes, such as a UUID")
        }
        return requestId
    }

    /// A `ttl` is a whole number of seconds from 1 to ``RequestLimits/maxTTLSeconds``, or absent.
    func ttl() throws(WireError) -> Int64? {
        guard let value = optionalValue(.ttl) else { return nil }
        let maximum = RequestLimits.maxTTLSeconds
        guard let seconds = value.integerValue, (1...maximum).contains(seconds) else {
            throw failure(
                .ttl,
                "must be a whole number of seconds from 1 to \(maximum), got \(value.kindDescription) "
                    + value.abbreviatedDescription)
        }
        return seconds
    }

    /// A `name` is 1 to ``RequestLimits/maxNameBytes`` bytes of UTF-8 without control characters, or absent.
    func helloName() throws(WireError) -> String? {
        guard let name = try optionalString(.name) else { return nil }
        let maximum = RequestLimits.maxNameBytes
        guard (1...maximum).contains(name.utf8.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw WireError(
                code: .badRequest,
                message: "field \"name\" must be 1 to \(maximum) bytes of UTF-8 without control characters")
        }
        return name
    }

    /// `fromRevision` (an integer ≥ 0) with an optional `epoch`; an `epoch` alone is an error.
    func resumePoint() throws(WireError) -> ResumePoint? {
        let epoch = try optionalString(.epoch)
        guard let revision = try optionalInteger(.fromRevision, minimum: 0) else {
            guard epoch == nil else {
                throw failure(.epoch, "is only meaningful with \"fromRevision\"")
            }
            return nil
        }
        return ResumePoint(revision: revision, epoch: epoch)
    }

    /// `"coalesce"` (the default when absent) or `"close"`.
    func slowPolicy() throws(WireError) -> SlowPolicy {
        guard let name = try optionalString(.slow) else { return .coalesce }
        guard let policy = SlowPolicy(rawValue: name) else {
            throw failure(.slow, "must be \"coalesce\" or \"close\", got \"\(name)\"")
        }
        return policy
    }

    /// Exactly one of `key` and `prefix`.
    func target() throws(WireError) -> Target {
        switch (try optionalString(.key), try optionalString(.prefix)) {
        case (let key?, nil):
            try KeyRules.validate(key: key)
            return .key(key)
        case (nil, let prefix?):
            try KeyRules.validate(prefix: prefix)
            return .prefix(prefix)
        case (nil, nil):
            throw WireError(
                code: .badRequest, message: "one of the fields \"key\" or \"prefix\" (a string) is required")
        case (_?, _?):
            throw WireError(code: .badRequest, message: "give only one of the fields \"key\" or \"prefix\", not both")
        }
    }
}
