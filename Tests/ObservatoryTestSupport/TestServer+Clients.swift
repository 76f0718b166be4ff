import ObservatoryClient

extension TestServer {
    /// Runs `body` with two connected clients, named `first` and `second`, of a
    /// server of its own (`init()`); closes both and stops the server afterwards,
    /// also when `body` throws. The set-up of most tests of two parties.
    public static func withClients<Result>(
        _ first: String = "alice", _ second: String = "bob",
        _ body: (ObservatoryClient, ObservatoryClient) async throws -> Result
    ) async throws -> Result {
        let server = try TestServer()
        defer { server.stop() }
        let one = try await server.client(first)
        defer { one.close() }
        let other = try await server.client(second)
        defer { other.close() }
        return try await body(one, other)
    }
}
