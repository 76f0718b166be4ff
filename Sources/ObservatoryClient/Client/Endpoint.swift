/// Where a server listens: a host name or address and a TCP port.
///
/// A client given several (``ClientConfiguration/endpoints``, the nodes of a
/// cluster) connects to the first and, whenever a connection fails or breaks,
/// moves on to the next, resuming its mirrors there.
///
///     let nodes = try ["a.local:7070", "b.local:7070"].map(Endpoint.init(parsing:))
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int

    /// The endpoint `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Why a text is not an endpoint.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, naming the text.
        public let description: String
    }

    /// Parses `host:port`, or `host` alone with `defaultPort`; a bracketed IPv6
    /// address (`[::1]:7070`) keeps its colons.
    /// - Throws: ``ParseError`` for an empty host or a port that is not 1–65535.
    public init(parsing text: String, defaultPort: Int = 7070) throws(ParseError) {
        var host = Substring(text)
        var port = defaultPort
        let portSeparator: String.Index? =
            host.hasPrefix("[")
            ? host.lastIndex(of: "]").flatMap { close in host[close...].firstIndex(of: ":") }
            : host.firstIndex(of: ":")
        if let separator = portSeparator {
            let portText = host[host.index(after: separator)...]
            guard let number = Int(portText), (1...65_535).contains(number) else {
                throw ParseError(description: "'\(text)' has no port from 1 to 65535 after its ':'")
            }
            port = number
            host = host[..<separator]
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { throw ParseError(description: "'\(text)' has no host") }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, for logs and messages.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
