/// A value the reply and event encoders can write where a JSON value goes: a
/// ``JSONValue`` (encoded) or an ``EncodedJSON`` (copied as it is).
///
/// Internal: it lets each message be written by one function for both kinds
/// of values, so that the two encodings cannot drift apart.
protocol JSONWritable {
    /// Appends the value's JSON text.
    func write(into buffer: inout [UInt8])
}

extension JSONValue: JSONWritable {
    func write(into buffer: inout [UInt8]) {
        JSONWriter.write(self, into: &buffer)
    }
}

extension EncodedJSON: JSONWritable {
    func write(into buffer: inout [UInt8]) {
        encode(into: &buffer)
    }
}
