/// Why a WebSocket connection must close: a frame or message that breaks RFC 6455
/// or a limit, with the close code to send (``closeCode``).
///
/// A struct with an open set of codes, like ``HTTPError``, so that cases can be added
/// without breaking callers.
public struct WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable across versions.
    public var code: Code
    /// The status code to send in the close frame: 1002, 1007 or 1009.
    public var closeCode: WebSocketCloseCode
    /// What exactly was wrong, for a person reading a log (and, shortened, the close reason).
    public var message: String

    /// Creates an error from its parts.
    public init(code: Code, closeCode: WebSocketCloseCode, message: String) {
        self.code = code
        self.closeCode = closeCode
        self.message = message
    }

    /// `code: message`, for logs.
    public var description: String {
        "\(code): \(message)"
    }

    /// The kind of a ``WebSocketError``: an open set of named cases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unmaskedFrame
            case maskedFrame
            case reservedBitsSet
            case unknownOpcode
            case invalidControlFrame
            case invalidLength
            case frameTooLarge
            case messageTooLarge
            case unexpectedContinuation
            case expectedContinuation
            case invalidUTF8
            case invalidClosePayload
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A client's frame without a mask (1002).
        public static let unmaskedFrame = Code(.unmaskedFrame)
        /// A server's frame with a mask (1002).
        public static let maskedFrame = Code(.maskedFrame)
        /// A reserved bit set with no extension that defines it (1002).
        public static let reservedBitsSet = Code(.reservedBitsSet)
        /// An opcode RFC 6455 reserves (1002).
        public static let unknownOpcode = Code(.unknownOpcode)
        /// A control frame that is fragmented or longer than 125 bytes (1002).
        public static let invalidControlFrame = Code(.invalidControlFrame)
        /// A 64-bit length with its most significant bit set (1002).
        public static let invalidLength = Code(.invalidLength)
        /// A frame whose payload is over the limit, refused before it is read (1009).
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A message whose fragments add up to more than the limit (1009).
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A continuation frame with no message begun (1002).
        public static let unexpectedContinuation = Code(.unexpectedContinuation)
        /// A new text or binary frame while a fragmented message is unfinished (1002).
        public static let expectedContinuation = Code(.expectedContinuation)
        /// A text message or close reason that is not valid UTF-8 (1007).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A close payload of one byte, or with a code that may not be sent (1002).
        public static let invalidClosePayload = Code(.invalidClosePayload)

        /// The case's name, for logs.
        public var description: String {
            base.rawValue
        }
    }
}

extension WebSocketError {
    static func protocolError(_ code: Code, _ message: String) -> WebSocketError {
        WebSocketError(code: code, closeCode: .protocolError, message: message)
    }

    static func invalidClosePayload(_ message: String) -> WebSocketError {
        protocolError(.invalidClosePayload, message)
    }

    static func invalidUTF8(_ message: String) -> WebSocketError {
        WebSocketError(code: .invalidUTF8, closeCode: .invalidPayloadData, message: message)
    }

    static func tooLarge(_ code: Code, limit: Int) -> WebSocketError {
        let what = code == .frameTooLarge ? "frame" : "message"
        return WebSocketError(
            code: code, closeCode: .messageTooBig, message: "the \(what) exceeds the limit of \(limit) bytes")
    }
}
