import ObservatoryServer
import Testing

/// docs/protocol.md, `hello` with auth on, `unauthenticated` and `forbidden`.
@Suite struct AuthenticationConformanceTests {
    static func withAuthenticatingServer(_ body: (RunningServer) throws -> Void) throws {
        try withServer(
            {
                $0.auth.tokens = [
                    AccessToken(token: "alice-token", author: "alice", read: ["*"], write: ["kitchen.*"]),
                    AccessToken(token: "guest-token", author: "guest", read: ["public.*"], write: []),
                ]
            }, body)
    }

    @Test func everyOpBeforeASuccessfulHelloFailsUnauthenticatedAndTheConnectionStaysOpen() throws {
        try Self.withAuthenticatingServer { server in
            let client = try server.connect()
            for request: [String: Any] in [
                ["op": "get", "key": "k"], ["op": "set", "key": "k", "value": 1], ["op": "list"],
                ["op": "observe", "key": "k"], ["op": "ping"],
            ] {
                let reply = try client.call(request)
                #expect(reply.errorCode == "unauthenticated", "\(request) -> \(reply)")
            }
            let hello = try client.call(["op": "hello", "token": "alice-token"])
            #expect(hello.ok == true, "\(hello)")
            #expect(try client.call(["op": "ping"]).ok == true)
        }
    }

    @Test func helloWithAWrongOrMissingTokenFailsUnauthenticatedAndCloses() throws {
        try Self.withAuthenticatingServer { server in
            for request: [String: Any] in [["op": "hello", "token": "wrong"], ["op": "hello", "name": "x"]] {
                let client = try server.connect()
                try client.send(request.merging(["id": "h"]) { old, _ in old })
                let frames = try client.framesUntilClosed()
                let reply = try #require(frames.first, "no reply before the close")
                #expect(reply.errorCode == "unauthenticated", "\(reply)")
                #expect(reply.id == .string("h"))
            }
        }
    }

    @Test func theAuthorIsTheTokensAuthorWhateverNameIsSent() throws {
        try Self.withAuthenticatingServer { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "token": "alice-token", "name": "mallory"])
            #expect(hello.string("author") == "alice", "\(hello)")
            _ = try client.call(["op": "set", "key": "kitchen.light", "value": true])
            #expect(try client.call(["op": "get", "key": "kitchen.light"]).string("author") == "alice")
        }
    }

    @Test func keysOutsideTheTokensPrefixesAreForbiddenWhetherOrNotTheyExist() throws {
        try Self.withAuthenticatingServer { server in
            let alice = try server.connect()
            _ = try alice.call(["op": "hello", "token": "alice-token"])
            #expect(try alice.call(["op": "set", "key": "kitchen.light", "value": 1]).ok == true)
            let outside = try alice.call(["op": "set", "key": "garden.light", "value": 1])
            #expect(outside.errorCode == "forbidden", "\(outside)")
            let guest = try server.connect()
            _ = try guest.call(["op": "hello", "token": "guest-token"])
            for key in ["kitchen.light", "kitchen.absent"] {
                let get = try guest.call(["op": "get", "key": key])
                #expect(get.errorCode == "forbidden", "\(key) -> \(get)")
                let delete = try guest.call(["op": "delete", "key": key])
                #expect(delete.errorCode == "forbidden", "\(key) -> \(delete)")
                let observe = try guest.call(["op": "observe", "key": key])
                #expect(observe.errorCode == "forbidden", "\(key) -> \(observe)")
            }
            let write = try guest.call(["op": "set", "key": "public.note", "value": 1])
            #expect(write.errorCode == "forbidden", "\(write)")
        }
    }
}
