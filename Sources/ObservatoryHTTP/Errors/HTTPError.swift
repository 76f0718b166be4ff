/// Why an HTTP message could not be decoded or a target not be parsed.
///
/// A struct rather than an enum, so that new kinds of failure can be added without
/// breaking callers that switch over them: compare ``code`` with the `static let`
/// cases of ``Code``. A server answers the failure with ``status`` and then closes
/// the connection, because the byte stream has lost its framing.
///
/// ```swift
/// do {
///     while let part = try decoder.next() { handle(part) }
/// } catch {
///     if let status = error.status { send(HTTPResponse(status: status)) }
///     close()
/// }
/// ```
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable across versions.
    public var code: Code
    /// What exactly was wrong, for a person reading a log.
    public var message: String
    /// The status a server answers this failure with (400, 413, 431, 501, 505);
    /// `nil` for failures only a client sees, such as a malformed status line.
    public var status: HTTPStatus?

    /// Creates an error from its parts.
    public init(code: Code, message: String, status: HTTPStatus?) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `code: message`, for logs.
    public var description: String {
        "\(code): \(message)"
    }

    /// The kind of an ``HTTPError``: an open set of named cases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidStatusLine
            case invalidRequestLine
            case unsupportedVersion
            case invalidHeader
            case invalidLineEnding
            case headTooLarge
            case bodyTooLarge
            case invalidContentLength
            case conflictingFraming
            case unsupportedTransferCoding
            case invalidChunk
            case unexpectedEnd
            case invalidTarget
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A response's first line is not `HTTP/1.x SP 3DIGIT [SP reason]`.
        public static let invalidStatusLine = Code(.invalidStatusLine)
        /// A request's first line is not `METHOD SP TARGET SP HTTP/1.x`.
        public static let invalidRequestLine = Code(.invalidRequestLine)
        /// A request line with a version other than HTTP/1.0 or HTTP/1.1.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A header line that is not `name: value`: a folded line, whitespace before
        /// the colon, a character outside a token in the name or a control in the value.
        public static let invalidHeader = Code(.invalidHeader)
        /// A line of the head that ends in LF without CR.
        public static let invalidLineEnding = Code(.invalidLineEnding)
        /// The first line and the headers (or a chunked body's trailers) are over their limit.
        public static let headTooLarge = Code(.headTooLarge)
        /// The body is over its limit.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// A `Content-Length` that is not a decimal number, or two that differ.
        public static let invalidContentLength = Code(.invalidContentLength)
        /// A request with both `Content-Length` and `Transfer-Encoding`: a smuggling risk.
        public static let conflictingFraming = Code(.conflictingFraming)
        /// A request body in a transfer coding other than `chunked`.
        public static let unsupportedTransferCoding = Code(.unsupportedTransferCoding)
        /// A chunk size line that is not hexadecimal, too long, or a chunk not ending in CR LF.
        public static let invalidChunk = Code(.invalidChunk)
        /// The input ended in the middle of a message.
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// A request target with an invalid percent escape or invalid UTF-8.
        public static let invalidTarget = Code(.invalidTarget)

        /// The case's name, for logs.
        public var description: String {
            base.rawValue
        }
    }
}

extension HTTPError {
    static func invalidStatusLine(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidStatusLine, message: "invalid status line: \(detail)", status: nil)
    }

    static func invalidRequestLine(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidRequestLine, message: "invalid request line: \(detail)", status: .badRequest)
    }

    static func unsupportedVersion() -> HTTPError {
        HTTPError(
            code: .unsupportedVersion, message: "only HTTP/1.0 and HTTP/1.1 are served",
            status: .httpVersionNotSupported)
    }

    static func invalidHeader(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidHeader, message: "invalid header line: \(detail)", status: .badRequest)
    }

    static func invalidLineEnding() -> HTTPError {
        HTTPError(code: .invalidLineEnding, message: "lines must end in CR LF, not a bare LF", status: .badRequest)
    }

    static func headTooLarge(limit: Int, what: String = "request line and headers") -> HTTPError {
        HTTPError(
            code: .headTooLarge, message: "\(what) exceed the limit of \(limit) bytes",
            status: .requestHeaderFieldsTooLarge)
    }

    static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(code: .bodyTooLarge, message: "body exceeds the limit of \(limit) bytes", status: .contentTooLarge)
    }

    static func invalidContentLength(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidContentLength, message: "invalid Content-Length: \(detail)", status: .badRequest)
    }

    static func conflictingFraming() -> HTTPError {
        HTTPError(
            code: .conflictingFraming, message: "a message must not have both Content-Length and Transfer-Encoding",
            status: .badRequest)
    }

    static func unsupportedTransferCoding(_ coding: String) -> HTTPError {
        HTTPError(
            code: .unsupportedTransferCoding,
            message: "transfer coding \"\(coding)\" is not supported; only chunked is", status: .notImplemented)
    }

    static func invalidChunk(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidChunk, message: "invalid chunked body: \(detail)", status: .badRequest)
    }

    static func unexpectedEnd(_ detail: String) -> HTTPError {
        HTTPError(code: .unexpectedEnd, message: "input ended \(detail)", status: .badRequest)
    }

    static func invalidTarget(_ detail: String) -> HTTPError {
        HTTPError(code: .invalidTarget, message: "invalid request target: \(detail)", status: .badRequest)
    }
}
