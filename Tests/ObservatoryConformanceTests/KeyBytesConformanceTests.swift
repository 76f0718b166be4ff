import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md: "Keys are compared by their UTF-8 bytes: two keys that differ in
/// bytes are different keys, even when Unicode calls them equivalent."
@Suite struct KeyBytesConformanceTests {
    /// "é" as one scalar (U+00E9) and as "e" + a combining acute accent (U+0301).
    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    private func bytes(_ text: String?) -> [UInt8]? {
        text.map { Array($0.utf8) }
    }

    @Test func equivalentButDifferentBytesAreTwoKeys() throws {
        try withServer { server in
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": composed, "value": 1])
            _ = try client.call(["op": "set", "key": decomposed, "value": 2])
            #expect(try client.call(["op": "get", "key": composed])["value"] == .integer(1))
            #expect(try client.call(["op": "get", "key": decomposed])["value"] == .integer(2))
            let listed = try client.call(["op": "list", "prefix": "caf"])
            let keys = listed["keys"]?.array?.compactMap { bytes($0["key"]?.string) } ?? []
            // Byte order: "cafe" + U+0301 (0x65 …) before "caf" + U+00E9 (0xC3 0xA9).
            #expect(keys == [bytes(decomposed), bytes(composed)].compactMap { $0 }, "\(listed)")
            _ = try client.call(["op": "delete", "key": composed])
            #expect(try client.call(["op": "get", "key": decomposed])["value"] == .integer(2))
        }
    }

    @Test func observersOfOneFormGetNoEventsOfTheOther() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": composed])
            _ = try observer.call(["op": "observe", "prefix": composed + "."])
            let writer = try server.connect()
            _ = try writer.call(["op": "set", "key": decomposed, "value": "other"])
            _ = try writer.call(["op": "set", "key": decomposed + ".x", "value": "other"])
            _ = try writer.call(["op": "set", "key": composed, "value": "mine"])
            _ = try writer.call(["op": "set", "key": composed + ".x", "value": "mine"])
            let first = try observer.nextEvent()
            let second = try observer.nextEvent()
            #expect(bytes(first.string("key")) == bytes(composed), "\(first)")
            #expect(bytes(second.string("key")) == bytes(composed + ".x"), "\(second)")
            #expect(first["new"] == .string("mine") && second["new"] == .string("mine"))
        }
    }
}
