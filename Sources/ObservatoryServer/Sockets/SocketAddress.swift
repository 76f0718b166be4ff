#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address resolved from a host literal (or `localhost`) and a port.
struct SocketAddress {
    private(set) var storage = sockaddr_storage()
    let length: socklen_t
    let family: Int32

    /// Resolves `host` without DNS lookups beyond the hosts file; the first result wins.
    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            let detail = String(cString: gai_strerror(status))
            throw SocketError(operation: "resolve host '\(host)'", errorNumber: 0, detail: detail)
        }
        defer { freeaddrinfo(results) }
        family = first.pointee.ai_family
        length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(length)))
        }
    }

    /// Calls `body` with a `sockaddr` pointer to this address.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// The port the kernel bound `descriptor` to (useful after binding port 0).
    static func localPort(of descriptor: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard status == 0 else { throw SocketError.lastError("getsockname") }
        return withUnsafeBytes(of: storage) { raw in
            if Int32(storage.ss_family) == AF_INET6 {
                let address = raw.load(as: sockaddr_in6.self)
                return Int(UInt16(bigEndian: address.sin6_port))
            }
            let address = raw.load(as: sockaddr_in.self)
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
