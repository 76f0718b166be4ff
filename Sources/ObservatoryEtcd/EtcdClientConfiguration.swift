/// How an `EtcdClient` reaches the cluster and how long it waits.
public struct EtcdClientConfiguration: Sendable {
    /// The members' client URLs, parsed. Requests go to the first one that
    /// answers; after a failure the client starts with the next.
    public var endpoints: [EtcdEndpoint]
    /// The longest a request may take, all retries included: it answers or
    /// fails with `unavailable` within this time, never later. A read (or a
    /// keep-alive) gives each member a share of it (at least a second) and
    /// asks the next one when that passes; a write waits for its one member
    /// all along, since it is never sent twice.
    public var requestTimeout: Duration
    /// The longest one connection attempt may take, so that an unreachable
    /// member leaves time to try the others within `requestTimeout`.
    public var connectTimeout: Duration
    /// How long to wait before trying every member again after all of them failed.
    public var retryPause: Duration
    /// The most idle keep-alive connections kept per member; more are closed
    /// after use (any number may be open while requests run).
    public var maximumIdleConnectionsPerEndpoint: Int

    /// Creates a configuration for `endpoints`, with a 5 s request timeout and a
    /// 1 s connect timeout.
    public init(
        endpoints: [EtcdEndpoint], requestTimeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(1),
        retryPause: Duration = .milliseconds(100), maximumIdleConnectionsPerEndpoint: Int = 64
    ) {
        self.endpoints = endpoints
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.retryPause = retryPause
        self.maximumIdleConnectionsPerEndpoint = maximumIdleConnectionsPerEndpoint
    }

    /// Creates a configuration from client URLs such as `http://127.0.0.1:2379`.
    ///
    /// - Throws: `EtcdError` with code `requestFailed` naming the first URL that
    ///   is not `http://host:port`, or when there is none.
    public init(urls: [String], requestTimeout: Duration = .seconds(5)) throws(EtcdError) {
        var endpoints: [EtcdEndpoint] = []
        for url in urls {
            guard let endpoint = EtcdEndpoint(url: url) else {
                throw EtcdError(code: .requestFailed, message: "not an etcd client URL (http://host:port): \(url)")
            }
            endpoints.append(endpoint)
        }
        guard !endpoints.isEmpty else {
            throw EtcdError(code: .requestFailed, message: "no etcd endpoint given")
        }
        self.init(endpoints: endpoints, requestTimeout: requestTimeout)
    }
}
