import Foundation
import ObservatoryHTTP

/// etcd's v3 JSON gateway as the load driver needs it: `POST /v3/kv/put` (and a
/// status request for a reply only) on keep-alive HTTP/1.1 connections, and the
/// responses cut by their `Content-Length` and classified by their body.
///
/// A put is answered `{"header":{…}}` with status 200; a failure is
/// `{"error":…,"code":N}` with a 4xx or 5xx status. So a reply is ok only when it
/// is a 200 whose body has a `"header"` member, and everything else is counted
/// as a failed write. Requests are the project's `HTTPRequest`; the response head
/// goes through its `HTTPResponseDecoder`, the body is only searched.
enum EtcdGatewayFrames {
    /// Every request names this host: the gateway serves any, and the dialect does not know the port.
    private static let host = "127.0.0.1"
    private static let endOfHead = Array("\r\n\r\n".utf8)
    private static let headerMember = Array(#""header""#.utf8)
    /// A put's answer is about 120 bytes; anything over a megabyte is not one.
    static let longestBody = 1 << 20

    /// Appends `POST /v3/kv/put` storing `value` under `key`, both base64 as the gateway wants bytes.
    static func appendPut(key: String, value: [UInt8], to output: inout [UInt8]) {
        output.append(contentsOf: request("/v3/kv/put", body: putBody(key: key, value: value)))
    }

    /// Appends `POST /v3/maintenance/status`: a request that only gets a reply (with a `"header"`).
    static func appendStatus(to output: inout [UInt8]) {
        output.append(contentsOf: request("/v3/maintenance/status", body: Array("{}".utf8)))
    }

    /// `{"key":"<base64 key>","value":"<base64 value>"}`.
    static func putBody(key: String, value: [UInt8]) -> [UInt8] {
        var body = Array(#"{"key":""#.utf8)
        body.append(contentsOf: Data(key.utf8).base64EncodedString().utf8)
        body.append(contentsOf: #"","value":""#.utf8)
        body.append(contentsOf: Data(value).base64EncodedString().utf8)
        body.append(contentsOf: #""}"#.utf8)
        return body
    }

    private static func request(_ target: String, body: [UInt8]) -> [UInt8] {
        let headers: HTTPHeaders = ["Host": host, "Content-Type": "application/json"]
        return HTTPRequest(method: "POST", target: target, headers: headers, body: body).encoded()
    }

    /// The response starting at `start` in `bytes[..<end]` as a reply, or nil while it is incomplete.
    ///
    /// - Throws: when the bytes are not an HTTP response, or its body is not framed
    ///   by `Content-Length` (which the gateway always sends for these requests).
    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws -> WireDialect.Scanned? {
        guard let headEnd = ByteScan.find(endOfHead, in: bytes, from: start, to: end) else {
            guard end - start <= HTTPResponseDecoder.defaultMaxHeadBytes else {
                throw BenchError("etcd sent a response head of over \(HTTPResponseDecoder.defaultMaxHeadBytes) bytes")
            }
            return nil
        }
        let bodyStart = headEnd + endOfHead.count
        var decoder = HTTPResponseDecoder()
        decoder.requestSent(method: "POST")
        decoder.append(UnsafeRawBufferPointer(rebasing: bytes[start..<bodyStart]))
        guard case .head(let head)? = try decoder.next() else { throw BenchError("etcd sent an unreadable response") }
        guard let lengthText = head.headers["Content-Length"], let length = Int(lengthText),
            (0...longestBody).contains(length)
        else {
            throw BenchError(
                "etcd answered status \(head.status.code) without a Content-Length of at most \(longestBody) bytes; "
                    + "this dialect reads only such bodies (is the URL etcd's v3 gateway?)")
        }
        let bodyEnd = bodyStart + length
        guard bodyEnd <= end else { return nil }
        let ok = head.status.code == 200 && ByteScan.find(headerMember, in: bytes, from: bodyStart, to: bodyEnd) != nil
        return WireDialect.Scanned(frame: .reply(ok: ok), end: bodyEnd)
    }
}
