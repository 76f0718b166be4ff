#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 socket address resolved from a host name or literal and a port.
public struct SocketAddress {
    private(set) var storage = sockaddr_storage()
    let length: socklen_t
    let family: Int32

    private init(_ result: addrinfo) {
        family = result.ai_family
        length = result.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: result.ai_addr, count: Int(result.ai_addrlen)))
        }
    }

    /// Every TCP address `host` resolves to (IPv4 and IPv6, in the resolver's
    /// order of preference), never none: the project's one call of `getaddrinfo`.
    ///
    /// - Parameter operation: what the caller is doing, such as `connect to
    ///   example.com:7070`, so that a failure names the endpoint.
    /// - Throws: `SocketError` for `operation`, with the resolver's message.
    static func resolve(host: String, port: Int, for operation: String) throws(SocketError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, results != nil else {
            let reason = String(cString: gai_strerror(status))
            throw SocketError(operation: operation, errorNumber: 0, detail: "cannot resolve the host (\(reason))")
        }
        defer { freeaddrinfo(results) }
        var addresses: [SocketAddress] = []
        var next = results
        while let result = next {
            addresses.append(SocketAddress(result.pointee))
            next = result.pointee.ai_next
        }
        return addresses
    }

    /// Calls `body` with a `sockaddr` pointer to this address.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// The address of the peer of a connected `descriptor`, as `host:port`
    /// (`[host]:port` for IPv6), or `unknown` when the kernel cannot say.
    public static func peerDescription(of descriptor: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var host = [CChar](repeating: 0, count: 1_025)
        var service = [CChar](repeating: 0, count: 32)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard getpeername(descriptor, address, &length) == 0 else { return Int32(-1) }
                return getnameinfo(
                    address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "unknown" }
        let hostText = text(of: host)
        let port = text(of: service)
        return Int32(storage.ss_family) == AF_INET6 ? "[\(hostText)]:\(port)" : "\(hostText):\(port)"
    }

    private static func text(of characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
