/// A representation a request's values can be decoded as: `JSONValue` (a
/// tree, for clients and tests) or `EncodedJSON` (the bytes that were sent,
/// for the server, which stores and forwards them as they are).
///
/// The one request decoder (``Request``, ``Operation``, ``BatchOperation``) is
/// generic over it: a frame's fields are read in one pass that keeps each value
/// as the range of its bytes, and only the value itself is made as the
/// representation asks. Internal, so that the public decoders are concrete
/// functions the server calls without going through generic metadata.
protocol RequestValue: JSONWritable {
    /// The value whose checked JSON text is `bytes`, a part of a frame that parsed.
    static func made(fromChecked bytes: UnsafeBufferPointer<UInt8>) -> Self
    /// The value of a field of an already parsed object.
    static func made(fromTree tree: JSONValue) -> Self
    /// The size of the value's compact encoding (what `JSONValue/encode(into:)`
    /// writes), which `limits.maxValueBytes` bounds.
    var compactByteCount: Int { get }
}

extension RequestValue {
    /// Throws `value_too_large` when the value's compact encoding is over `limit`;
    /// frames too small to hold such a value skip measuring.
    static func checkSize(of value: Self, limit: Int, frameByteCount: Int?) throws(WireError) {
        if let frameByteCount, frameByteCount <= limit / encodingGrowthBound {
            return
        }
        let size = value.compactByteCount
        guard size <= limit else {
            throw WireError.valueTooLarge(size: size, limit: limit)
        }
    }

    /// The most a value's compact encoding can exceed the text it was parsed from.
    /// Only numbers grow (`1e15` → `1000000000000000`, 4×; `1e-5` → `1e-05`);
    /// strings never do, since escapes are written no longer than they can be read.
    private static var encodingGrowthBound: Int { 8 }
}

extension JSONValue: RequestValue {
    static func made(fromChecked bytes: UnsafeBufferPointer<UInt8>) -> JSONValue {
        // Checked with the frame, so it parses; its depth is within the frame's.
        (try? JSONParser.parse(bytes, maxDepth: .max)) ?? .null
    }

    static func made(fromTree tree: JSONValue) -> JSONValue {
        tree
    }

    var compactByteCount: Int { encoded().count }
}

extension EncodedJSON: RequestValue {
    static func made(fromChecked bytes: UnsafeBufferPointer<UInt8>) -> EncodedJSON {
        // Copied from the buffer in one step (`Array(frame[range])` goes element by element).
        EncodedJSON(validatedBytes: Array(bytes))
    }

    static func made(fromTree tree: JSONValue) -> EncodedJSON {
        EncodedJSON(tree)
    }

    var compactByteCount: Int { canonicalCount }
}
