@testable import ObservatoryJSON
@testable import ObservatoryWire

/// What the quick and the compact readers of a `set` are checked against: the
/// full decoder's answer, and a `set`'s value bytes (for comparing byte for
/// byte, where `==` compares values).
enum SetReaderReference {
    /// The full decoder's answer to `frame`.
    static func full(_ frame: [UInt8], limits: RequestLimits) -> Result<Request<EncodedJSON>, RequestRejection> {
        frame.withUnsafeBufferPointer { Request<EncodedJSON>.decodeFrame($0, limits: limits) }
    }

    /// The bytes of the value `request` sets; nil for any other operation.
    static func valueBytes(_ request: Request<EncodedJSON>) -> [UInt8]? {
        guard case .set(_, let value, _, _, _, _) = request.operation else { return nil }
        return value.bytes
    }
}
