/// Where a ``FieldReader`` finds the fields it reads: a parsed JSON object,
/// looked up by name, or a request's ``RequestFields``, looked up by slot.
protocol FieldSource {
    /// How a field is named to the source.
    associatedtype Field
    /// The field's value as sent, `null` included; nil when it is absent.
    func value(of field: Field) -> JSONValue?
    /// The field's name, for error messages.
    static func name(of field: Field) -> String
    /// The field's string when the source has it at hand without building a
    /// value (a plain string of a frame); nil otherwise, also for a string it
    /// must first decode.
    func plainText(of field: Field) -> String?
    /// Whether the field is surely absent, told without looking at a value
    /// (optional fields are mostly absent, and asked for on every request);
    /// false when the source cannot tell so cheaply.
    func isAbsent(_ field: Field) -> Bool
}

extension FieldSource {
    /// Nil: strings are read from the field's value.
    func plainText(of field: Field) -> String? {
        nil
    }

    /// False: absence is found by looking the field up.
    func isAbsent(_ field: Field) -> Bool {
        false
    }
}

extension JSONObject: FieldSource {
    func value(of field: String) -> JSONValue? {
        self[field]
    }

    static func name(of field: String) -> String {
        field
    }
}
