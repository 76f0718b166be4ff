import ObservatoryWire

// The server keeps values as `EncodedJSON`; these read as `JSONValue`'s cases, so
// tests write `.integer(3)` for the encoding of 3.
extension EncodedJSON {
    static func integer(_ value: Int64) -> EncodedJSON { EncodedJSON(.integer(value)) }

    static func string(_ value: String) -> EncodedJSON { EncodedJSON(.string(value)) }
}
