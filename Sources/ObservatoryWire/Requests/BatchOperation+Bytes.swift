extension BatchOperation where Value == EncodedJSON {
    /// Reads a batch's `ops` as the tree decoder reads them (the same errors in
    /// the same order), from the fields of its elements read with the frame
    /// (``RequestFields/batchElements``): each `set`'s value is copied as its
    /// bytes, never built into a tree, so a batch of 10 sets costs less a key
    /// than 10 single sets (docs/benchmarks.md).
    ///
    /// - Parameters:
    ///   - elements: The elements' fields; nil when `ops` is absent or no array.
    ///   - fields: The request's fields, for the error of an `ops` that is no array.
    static func decodeAll(
        _ elements: [RequestFields]?, from fields: FieldReader<RequestFields>, limits: RequestLimits,
        frameByteCount: Int
    ) throws(WireError) -> [BatchOperation] {
        guard let elements else {
            // `ops` is absent, `null` or no array, which `requiredArray` rejects; an
            // array it returned would have come as a tree, and is read as one.
            let trees = try BatchOperation<JSONValue>.decodeAll(
                try fields.requiredArray(.ops), limits: limits, frameByteCount: frameByteCount)
            return trees.map { $0.encodedValues() }
        }
        return try decodeAll(count: elements.count) { (index) throws(WireError) in
            let source = elements[index]
            if let value = source.nonObject { throw notAnObject(value.kindDescription) }
            let fields = FieldReader(source, errorCode: .badRequest, context: "batch operation: ")
            return try decode(
                from: fields,
                readValue: { () throws(WireError) in
                    guard let value = source.valueAsSent else {
                        throw fields.failure(.value, FieldReader<RequestFields>.requiredValueProblem)
                    }
                    return value
                },
                checkSize: { (value) throws(WireError) in
                    try Operation.checkSize(limit: limits.maxValueBytes, frameByteCount: frameByteCount) {
                        value.canonicalCount
                    }
                })
        }
    }
}
