/// A representation of one JSON value that entries and events can carry: a
/// ``JSONValue`` (a tree, encoded when written) or an ``EncodedJSON`` (bytes,
/// copied as they are).
///
/// The protocol's messages (`ServerEvent`, `ServerReply`, `KeyEntry` in
/// `ObservatoryWire`) are written by one function generic over it, so that the two encodings of a
/// message cannot drift apart: with canonical bytes (``EncodedJSON/isCanonical``) a
/// message carrying ``EncodedJSON`` is byte for byte the one carrying the
/// equivalent ``JSONValue``.
public protocol JSONWritable: Sendable, Equatable {
    /// Appends the value's JSON text to a message being built.
    func encode(into buffer: inout [UInt8])
}

extension JSONValue: JSONWritable {}

extension EncodedJSON: JSONWritable {}
