/// Builds the bytes of one outgoing message: a JSON object, alone or as a frame
/// (the object and its LF).
///
/// Room for a typical reply or event is reserved up front, so the buffer is not
/// reallocated several times while a small message grows, once per message on
/// the server's hottest path. ``Reply``, ``Event`` and ``Request`` use it for
/// `encoded()` and `encodedLine()`; a server that keeps more than the bytes of
/// an encoding (where an event's `old` member sits) calls it directly.
///
/// ```swift
/// var oldMember = 0..<0
/// let line = FrameBuilder.line { oldMember = event.encode(into: &$0) }
/// ```
public enum FrameBuilder {
    /// Bytes reserved before writing: most replies and events fit.
    public static let typicalByteCount = 256

    /// The bytes `write` appends to an empty buffer.
    public static func object(_ write: (inout [UInt8]) -> Void) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(typicalByteCount)
        write(&buffer)
        return buffer
    }

    /// The bytes `write` appends, followed by the LF that ends a frame.
    public static func line(_ write: (inout [UInt8]) -> Void) -> [UInt8] {
        object { buffer in
            write(&buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }
}
