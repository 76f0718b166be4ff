import Foundation
import Observatory
import ObservatoryClient
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@Suite(.timeLimit(.minutes(1))) struct AuthenticationEndToEndTests {
    private func startServer() throws -> Server {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.fsync = .none
        configuration.shutdownGraceMilliseconds = 200
        configuration.auth.tokens = [
            AccessToken(token: "kitchen-secret", author: "kitchen", read: ["*"], write: ["kitchen.*"])
        ]
        let server = try Server(configuration: configuration)
        try server.start()
        return server
    }

    private func configuration(port: Int, token: String) -> ClientConfiguration {
        var configuration = ClientConfiguration(port: port, token: token)
        configuration.reconnects = false
        return configuration
    }

    @Test func tokenNamesTheAuthorOfChanges() async throws {
        let server = try startServer()
        defer { server.stop() }
        let kitchen = try await ObservatoryClient.connect(configuration(port: server.port, token: "kitchen-secret"))
        defer { kitchen.close() }
        try await kitchen.set("kitchen.light", true)
        #expect(try await kitchen.get("kitchen.light").author.name == "kitchen")
        #expect(kitchen.localAuthor?.name == "kitchen")
    }

    @Test func wrongTokenFailsToConnectWithTheServersReason() async throws {
        let server = try startServer()
        defer { server.stop() }
        do {
            _ = try await ObservatoryClient.connect(configuration(port: server.port, token: "guess"))
            Issue.record("a wrong token was accepted")
        } catch {
            guard error.code == .connectionFailed else {
                Issue.record("expected connectionFailed, got \(error)")
                return
            }
            #expect(error.message.contains("unauthenticated"))
        }
    }

    @Test func forbiddenMirrorWriteIsReportedAndTheMirrorGoesBack() async throws {
        let server = try startServer()
        defer { server.stop() }
        let kitchen = try await ObservatoryClient.connect(configuration(port: server.port, token: "kitchen-secret"))
        defer { kitchen.close() }
        let garage = kitchen.variable("garage.door", default: "closed")
        try await kitchen.waitUntilSynchronized()
        let errors = Recorder<ClientError>()
        errors.record(kitchen.errors)
        let seen = Recorder<Update<String>>()
        seen.record(garage)
        garage <- "open"
        #expect(await eventually { errors.count == 1 })
        #expect(errors.messages.first?.serverError?.code == .forbidden)
        #expect(await eventually { garage.value == "closed" })
        #expect(seen.messages.map(\.new) == ["open", "closed"])
    }
}
