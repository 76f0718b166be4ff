import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Expiring keys through a real server: REST's `?ttl=`, `/metrics`, and how late
/// keys go when thousands expire in the same second.
@Suite(.timeLimit(.minutes(2))) struct ExpiryEndToEndTests {
    @Test func restPutTakesTTLAndTheKeyExpiresAndIsCounted() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let set = try client.request("PUT", "/v1/keys/door.open?ttl=1&name=alice", body: "true")
        #expect(set.status == 200, "\(set.text)")
        let get = try client.request("GET", "/v1/keys/door.open")
        #expect(get.json?["ttl"] == 1, "\(get.text)")
        try waitUntil("the key expires", timeout: .seconds(5)) {
            try client.request("GET", "/v1/keys/door.open").status == 404
        }
        try waitUntil("the expiry is counted", timeout: .seconds(5)) {
            try client.request("GET", "/metrics").text.contains("\nobservatory_expired_total 1\n")
        }
    }

    @Test(arguments: ["0", "-1", "31536001", "1.5", "soon", ""])
    func restPutWithABadTTLIsABadRequest(ttl: String) throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let set = try client.request("PUT", "/v1/keys/k?ttl=\(ttl)", body: "1")
        #expect(set.status == 400, "ttl \(ttl): \(set.text)")
        #expect(set.json?["error"]?["code"] == "bad_request", "\(set.text)")
        #expect(try client.request("GET", "/v1/keys/k").status == 404)
    }

    /// 10,000 keys expire within the same second; an observer receives their
    /// deletes. Lateness is the arrival of a delete minus its key's deadline.
    /// Asserts the protocol's bound (1 s) and prints p99 and max.
    @Test func tenThousandKeysExpiringInTheSameSecondGoWithinTheBound() throws {
        let server = try TestServer()
        let store = server.server.store
        let observer = try LineClient(port: server.port)
        _ = try observer.request(#"{"op":"observe","prefix":"burst."}"#)
        let writer = Author(name: "burst", session: "s-burst")
        // Start on a whole second so that every deadline falls in the next second but one.
        let start = KeyExpiry.wallMilliseconds()
        try waitUntil("a new second starts", timeout: .seconds(2)) {
            KeyExpiry.wallMilliseconds() / 1_000 > start / 1_000
        }
        var deadlines: [String: Int64] = [:]
        for index in 0..<10_000 {
            let key = "burst.\(index)"
            try store.set(key, to: 1, ttl: 2, by: writer)
            deadlines[key] = store.get(key)?.expiry?.deadline
        }
        let seconds = Set(deadlines.values.map { $0 / 1_000 })
        var lateness: [Int64] = []
        var updates = 0
        while lateness.count < deadlines.count {
            let line = try #require(try observer.nextLine(timeout: 10), "deletes stopped coming")
            let arrived = KeyExpiry.wallMilliseconds()
            let event = try JSONValue.parse(line)
            guard event["event"] == "delete" else {
                updates += 1
                continue
            }
            #expect(event["reason"] == "expired")
            let deadline = try #require(event["key"]?.stringValue.flatMap { deadlines[$0] })
            lateness.append(arrived - deadline)
        }
        lateness.sort()
        let p99 = lateness[lateness.count * 99 / 100]
        let worst = lateness[lateness.count - 1]
        print(
            "expiry lateness of 10,000 keys (deadlines in \(seconds.count) second(s)): "
                + "min \(lateness[0]) ms, p50 \(lateness[lateness.count / 2]) ms, p99 \(p99) ms, max \(worst) ms")
        #expect(updates == 10_000)
        #expect(lateness[0] >= 0, "a key went before its deadline")
        #expect(worst <= 1_000, "a key went more than a second late: \(worst) ms")
    }
}
