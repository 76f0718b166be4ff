/// One client request: an optional id and the operation.
///
/// Generic over how the values of a `set` and of a batch's sets are held (see
/// ``Operation``): the client library builds `Request<JSONValue>`s and sends
/// them with ``encoded()``; the server decodes every frame with
/// `Request<EncodedJSON>.decode(frame:limits:)`, which keeps each value as the
/// bytes that were sent (checked, never built into a tree). Both
/// representations decode a frame by the same code, so they accept and reject
/// the same frames with the same replies.
///
/// ```swift
/// switch Request<EncodedJSON>.decode(frame: line, limits: .default) {
/// case .success(let request): handle(request)
/// case .failure(let rejection): send(rejection.reply.encoded())
/// }
/// ```
public struct Request<Value: JSONWritable>: Sendable, Equatable {
    /// The id to echo in the reply, if the client sent one.
    public var id: RequestID?
    /// What the request asks for.
    public var operation: Operation<Value> {
        didSet { kind = operation.kind }
    }
    /// The op the operation is (`operation.kind`), kept beside it: the decoder
    /// knows it before it reads the op's fields, and reading it here copies
    /// nothing, where `Operation.kind` copies the operation (about 270
    /// instructions a call, callgrind) and the server asks for it on every request.
    public private(set) var kind: OperationKind

    /// Creates a request.
    public init(id: RequestID?, operation: Operation<Value>) {
        self.init(id: id, operation: operation, kind: operation.kind)
    }

    /// Creates a request whose operation is known to be of `kind`.
    init(id: RequestID?, operation: Operation<Value>, kind: OperationKind) {
        self.id = id
        self.operation = operation
        self.kind = kind
    }

    /// The request as one compact JSON object, without the LF:
    /// `{"id":7,"op":"set","key":"k","value":1}` (no `"id"` when there is none).
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The request as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.line { encode(into: &$0) }
    }

    /// Appends the request as in ``encoded()``.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        if let id {
            JSONWriter.writeLiteral("\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            buffer.append(UInt8(ascii: ","))
        }
        JSONWriter.writeLiteral("\"op\":", into: &buffer)
        JSONWriter.write(operation.kind.rawValue, into: &buffer)
        operation.encodeFields(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}
