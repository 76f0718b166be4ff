/// One etcd member's client URL, `http://host:port`, split into what a socket needs.
public struct EtcdEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address literal (IPv6 without brackets).
    public let host: String
    /// The TCP port.
    public let port: Int

    /// Creates an endpoint from its parts.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses a client URL such as `http://127.0.0.1:2379` or `http://[::1]:2379`;
    /// nil for anything else (`https` needs TLS, which this client does not speak).
    public init?(url: String) {
        var rest = Substring(url)
        guard rest.hasPrefix("http://") else { return nil }
        rest = rest.dropFirst("http://".count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = rest[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains("/") else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// The endpoint as a URL, `http://host:port`.
    public var description: String {
        "http://\(hostHeader)"
    }

    /// The `Host` header's value, built for every request: the colon is looked for
    /// byte by byte, since `contains` on a string goes through Foundation's
    /// `range(of:)` here (1.4 % of a cluster node's CPU under writes).
    var hostHeader: String {
        host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
