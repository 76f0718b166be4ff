/// A response status: its three-digit code and the reason phrase sent with it.
///
/// Decoded responses carry the phrase the server sent; statuses made here carry
/// the phrase of RFC 9110, so an encoded response reads as people expect. Two
/// statuses are equal when their codes are: the phrase is for people, and
/// `head.status == .ok` must hold whatever words a server chose.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit code, 100 to 999.
    public var code: Int
    /// The reason phrase; clients must not depend on it, people read it.
    public var reasonPhrase: String

    /// A status with an explicit reason phrase, as a decoded response has it.
    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// A status with RFC 9110's reason phrase for `code` (`"Unknown"` for codes it does not name).
    public init(code: Int) {
        self.init(code: code, reasonPhrase: Self.standardReasonPhrase(for: code))
    }

    /// Whether the codes are equal; the reason phrases do not matter.
    public static func == (left: HTTPStatus, right: HTTPStatus) -> Bool {
        left.code == right.code
    }

    /// Hashes the code only, as ``==`` compares it only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// `200 OK`.
    public var description: String {
        "\(code) \(reasonPhrase)"
    }

    /// Whether the code is 1xx: an interim response that a final one follows.
    public var isInformational: Bool {
        (100..<200).contains(code)
    }

    /// Whether a response with this status never has a body (1xx, 204, 304), whatever its headers say.
    public var forbidsBody: Bool {
        isInformational || code == 204 || code == 304
    }

    /// 101: the connection switches to the protocol named in `Upgrade`.
    public static let switchingProtocols = HTTPStatus(code: 101)
    /// 200.
    public static let ok = HTTPStatus(code: 200)
    /// 201.
    public static let created = HTTPStatus(code: 201)
    /// 204: success with no body.
    public static let noContent = HTTPStatus(code: 204)
    /// 304.
    public static let notModified = HTTPStatus(code: 304)
    /// 400: the request is malformed.
    public static let badRequest = HTTPStatus(code: 400)
    /// 401: a token is missing or wrong.
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403: the token lacks the right.
    public static let forbidden = HTTPStatus(code: 403)
    /// 404.
    public static let notFound = HTTPStatus(code: 404)
    /// 405: the path exists, the method does not.
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 409: a precondition on the version failed.
    public static let conflict = HTTPStatus(code: 409)
    /// 413: the body is over the limit.
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 426: the WebSocket version is not 13.
    public static let upgradeRequired = HTTPStatus(code: 426)
    /// 429: a limit was reached.
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 431: the request line and headers are over the limit.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    /// 500.
    public static let internalServerError = HTTPStatus(code: 500)
    /// 501: a transfer coding (or feature) the server does not implement.
    public static let notImplemented = HTTPStatus(code: 501)
    /// 503: the node cannot serve now.
    public static let serviceUnavailable = HTTPStatus(code: 503)
    /// 505: a request line naming an HTTP version other than 1.0 or 1.1.
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// RFC 9110's reason phrase for `code`.
    public static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}
