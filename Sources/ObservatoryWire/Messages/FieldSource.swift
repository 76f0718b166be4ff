/// Where a ``FieldReader`` finds the fields it reads: a parsed JSON object,
/// looked up by name, or a request's ``RequestFields``, looked up by slot.
protocol FieldSource {
    /// How a field is named to the source.
    associatedtype Field
    /// The field's value as sent, `null` included; nil when it is absent.
    func value(of field: Field) -> JSONValue?
    /// The field's name, for error messages.
    static func name(of field: Field) -> String
}

extension JSONObject: FieldSource {
    func value(of field: String) -> JSONValue? {
        self[field]
    }

    static func name(of field: String) -> String {
        field
    }
}
