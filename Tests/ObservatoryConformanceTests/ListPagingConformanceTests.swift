import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, `list`: byte order, `after`, `limit`, `more`, and a capped page;
/// `hello`: a `name` is 1–128 bytes of UTF-8 without control characters.
@Suite struct ListPagingConformanceTests {
    private func keys(_ reply: Frame) -> [String] {
        reply["keys"]?.array?.compactMap { $0["key"]?.string } ?? []
    }

    @Test func pagesWithAfterAndLimitInByteOrderUntilMoreIsFalse() throws {
        try withServer { server in
            let client = try server.connect()
            let written = ["p.b", "p.a", "p.Z", "p.c", "p.aa", "q.x"]
            for key in written { _ = try client.call(["op": "set", "key": key, "value": 1]) }
            let first = try client.call(["op": "list", "prefix": "p.", "limit": 2])
            #expect(keys(first) == ["p.Z", "p.a"], "\(first)")
            #expect(first["more"] == .bool(true), "\(first)")
            let second = try client.call(["op": "list", "prefix": "p.", "after": "p.a", "limit": 2])
            #expect(keys(second) == ["p.aa", "p.b"])
            #expect(second["more"] == .bool(true))
            let last = try client.call(["op": "list", "prefix": "p.", "after": "p.b", "limit": 2])
            #expect(keys(last) == ["p.c"])
            #expect(last["more"] == .bool(false), "\(last)")
            let whole = try client.call(["op": "list", "prefix": "p."])
            #expect(keys(whole) == ["p.Z", "p.a", "p.aa", "p.b", "p.c"])
            #expect(whole["more"] == .bool(false))
            // `after` need not be an existing key.
            #expect(keys(try client.call(["op": "list", "prefix": "p.", "after": "p.ab"])) == ["p.b", "p.c"])
        }
    }

    @Test func aLimitBelowOneOrNotAnIntegerIsABadRequest() throws {
        try withServer { server in
            let client = try server.connect()
            #expect(try client.call(["op": "list", "limit": 0]).errorCode == "bad_request")
            #expect(try client.call(["op": "list", "limit": "3"]).errorCode == "bad_request")
            #expect(try client.call(["op": "list", "limit": 1.5]).errorCode == "bad_request")
        }
    }

    @Test func theServersCapEndsAPageWithMore() throws {
        try withServer({ $0.limits.maxListKeys = 3 }) { server in
            let client = try server.connect()
            for index in 0..<5 { _ = try client.call(["op": "set", "key": "k\(index)", "value": index]) }
            let page = try client.call(["op": "list", "limit": 100])
            #expect(keys(page) == ["k0", "k1", "k2"])
            #expect(page["more"] == .bool(true))
            let rest = try client.call(["op": "list", "after": "k2"])
            #expect(keys(rest) == ["k3", "k4"])
            #expect(rest["more"] == .bool(false))
        }
    }

    @Test func helloNamesAreOneTo128BytesWithoutControlCharacters() throws {
        try withServer { server in
            for name in ["", String(repeating: "n", count: 129), "tab\there", "line\nbreak"] {
                let client = try server.connect()
                let reply = try client.call(["op": "hello", "name": name])
                #expect(reply.errorCode == "bad_request", "name of \(name.utf8.count) bytes: \(reply)")
            }
            let client = try server.connect()
            let longest = String(repeating: "ü", count: 64)
            #expect(try client.call(["op": "hello", "name": longest]).string("author") == longest)
        }
    }
}
