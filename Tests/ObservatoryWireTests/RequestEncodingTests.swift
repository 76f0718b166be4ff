import ObservatoryWire
import Testing

/// Requests as clients send them: each operation's encoding has the protocol's
/// shape and decodes back to the same request.
@Suite struct RequestEncodingTests {
    @Test(arguments: [
        (
            Request<JSONValue>(id: .integer(1), operation: .hello(name: "alice", token: "t", protocolVersion: 1)),
            #"{"id":1,"op":"hello","name":"alice","token":"t","protocol":1}"#
        ),
        (
            Request<JSONValue>(id: nil, operation: .hello(name: nil, token: nil, protocolVersion: 1)),
            #"{"op":"hello","protocol":1}"#
        ),
        (Request<JSONValue>(id: .string("g"), operation: .get(key: "a.b")), #"{"id":"g","op":"get","key":"a.b"}"#),
        (
            Request<JSONValue>(id: .integer(2), operation: .set(key: "k", value: ["x": [1, 2.5]], ifVersion: 0)),
            #"{"id":2,"op":"set","key":"k","value":{"x":[1,2.5]},"ifVersion":0}"#
        ),
        (
            Request<JSONValue>(id: .integer(3), operation: .set(key: "k", value: .null, ifVersion: nil)),
            #"{"id":3,"op":"set","key":"k","value":null}"#
        ),
        (
            Request<JSONValue>(id: .integer(4), operation: .delete(key: "k", ifVersion: 7)),
            #"{"id":4,"op":"delete","key":"k","ifVersion":7}"#
        ),
        (
            Request<JSONValue>(id: .integer(5), operation: .delete(key: "k", ifVersion: nil)),
            #"{"id":5,"op":"delete","key":"k"}"#
        ),
        (Request<JSONValue>(id: .integer(6), operation: .observe(.key("k"))), #"{"id":6,"op":"observe","key":"k"}"#),
        (
            Request<JSONValue>(id: .integer(7), operation: .observe(.prefix(""))),
            #"{"id":7,"op":"observe","prefix":""}"#
        ),
        (
            Request<JSONValue>(id: .integer(8), operation: .unobserve(.prefix("p."))),
            #"{"id":8,"op":"unobserve","prefix":"p."}"#
        ),
        (
            Request<JSONValue>(id: .integer(9), operation: .list(prefix: "p.", after: nil, limit: nil)),
            #"{"id":9,"op":"list","prefix":"p."}"#
        ),
        (
            Request<JSONValue>(id: .integer(9), operation: .list(prefix: "p.", after: "p.a", limit: 3)),
            #"{"id":9,"op":"list","prefix":"p.","after":"p.a","limit":3}"#
        ),
        (Request<JSONValue>(id: .integer(10), operation: .ping), #"{"id":10,"op":"ping"}"#),
        (
            Request<JSONValue>(
                id: .integer(11),
                operation: .history(
                    HistoryQuery(
                        .prefix("door."), author: "alice", session: "s2", fromRevision: 3, toRevision: 9, limit: 20,
                        newestFirst: true))),
            #"{"id":11,"op":"history","prefix":"door.","author":"alice","session":"s2","fromRevision":3,"toRevision":9,"limit":20,"newestFirst":true}"#
        ),
        (
            Request<JSONValue>(id: .integer(12), operation: .history(HistoryQuery(.key("k")))),
            #"{"id":12,"op":"history","key":"k"}"#
        ),
    ])
    func requestsEncodeToProtocolShapesAndDecodeBack(_ request: Request<JSONValue>, _ expected: String) throws {
        #expect(text(request.encoded()) == expected)
        #expect(try Request<JSONValue>.decode(frame: request.encoded()).get() == request)
    }

    @Test func operationsNameTheirKind() {
        #expect(Operation<JSONValue>.observe(.key("k")).kind == .observe)
        #expect(Operation<JSONValue>.ping.kind.rawValue == "ping")
        #expect(
            OperationKind.allCases.map(\.rawValue) == [
                "hello", "get", "set", "delete", "observe", "unobserve", "list", "ping", "history", "batch",
            ])
    }
}
