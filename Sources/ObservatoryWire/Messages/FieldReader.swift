/// Reads typed fields of a received JSON object, turning every missing or
/// ill-typed field into a ``WireError`` that names the field and what was expected.
///
/// Internal: shared by request decoding (errors are `bad_request`, fields from
/// ``RequestFields``) and by server-message decoding on the client (errors are
/// `bad_frame`, prefixed with what was being read, fields from a `JSONObject`).
/// An explicit `null` counts as absent for optional fields.
struct FieldReader<Source: FieldSource> {
    typealias Field = Source.Field

    let source: Source
    let errorCode: ErrorCode
    /// Put before every message, for example "server reply: ".
    let context: String

    init(_ source: Source, errorCode: ErrorCode, context: String = "") {
        self.source = source
        self.errorCode = errorCode
        self.context = context
    }

    /// The value of a field that must be present (it may be `null`).
    func requiredValue(_ field: Field) throws(WireError) -> JSONValue {
        guard let value = source.value(of: field) else {
            throw failure(field, Self.requiredValueProblem)
        }
        return value
    }

    /// What is wrong with a required value field that is absent.
    static var requiredValueProblem: String { "is required (any JSON value)" }

    /// The value of a field that may be absent or `null`.
    func optionalValue(_ field: Field) -> JSONValue? {
        guard !source.isAbsent(field), let value = source.value(of: field), !value.isNull else { return nil }
        return value
    }

    func requiredString(_ field: Field) throws(WireError) -> String {
        guard let string = try optionalString(field) else {
            throw failure(field, "is required (a string)")
        }
        return string
    }

    func optionalString(_ field: Field) throws(WireError) -> String? {
        if source.isAbsent(field) { return nil }
        // A key, say: made straight from the frame's bytes, not through a `JSONValue`.
        if let text = source.plainText(of: field) { return text }
        guard let value = optionalValue(field) else { return nil }
        guard let string = value.stringValue else {
            throw failure(field, "must be a string, got \(value.kindDescription)")
        }
        return string
    }

    func requiredBool(_ field: Field) throws(WireError) -> Bool {
        guard let bool = try optionalBool(field) else {
            throw failure(field, "is required (true or false)")
        }
        return bool
    }

    func optionalBool(_ field: Field) throws(WireError) -> Bool? {
        guard let value = optionalValue(field) else { return nil }
        guard let bool = value.boolValue else {
            throw failure(field, "must be true or false, got \(value.kindDescription)")
        }
        return bool
    }

    /// An integer field at least `minimum`; whole doubles count (the protocol lets `2.0` stand for `2`).
    func optionalInteger(_ field: Field, minimum: Int64) throws(WireError) -> Int64? {
        guard let value = optionalValue(field) else { return nil }
        guard let integer = value.integerValue, integer >= minimum else {
            throw failure(
                field, "must be an integer ≥ \(minimum), got \(value.kindDescription) \(value.abbreviatedDescription)")
        }
        return integer
    }

    func requiredInteger(_ field: Field, minimum: Int64) throws(WireError) -> Int64 {
        guard let integer = try optionalInteger(field, minimum: minimum) else {
            throw failure(field, "is required (an integer ≥ \(minimum))")
        }
        return integer
    }

    func requiredArray(_ field: Field) throws(WireError) -> [JSONValue] {
        guard let value = optionalValue(field) else {
            throw failure(field, "is required (an array)")
        }
        guard let array = value.arrayValue else {
            throw failure(field, "must be an array, got \(value.kindDescription)")
        }
        return array
    }

    func requiredObject(_ field: Field) throws(WireError) -> JSONObject {
        guard let value = optionalValue(field) else {
            throw failure(field, "is required (an object)")
        }
        guard let object = value.objectValue else {
            throw failure(field, "must be an object, got \(value.kindDescription)")
        }
        return object
    }

    /// A reader for a nested object, with the same error code and context.
    func nested(_ object: JSONObject) -> FieldReader<JSONObject> {
        FieldReader<JSONObject>(object, errorCode: errorCode, context: context)
    }

    func failure(_ field: Field, _ problem: String) -> WireError {
        WireError(code: errorCode, message: "\(context)field \"\(Source.name(of: field))\" \(problem)")
    }
}
