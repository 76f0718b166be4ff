import Foundation
import Glibc

/// One line the server sent, parsed by `JSONSerialization` into an object.
struct Frame: CustomStringConvertible {
    /// The parsed object.
    let object: [String: Any]
    /// The exact text of the line, for messages and byte-level checks.
    let text: String

    init?(line: [UInt8]) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed]),
            let object = parsed as? [String: Any]
        else { return nil }
        self.object = object
        text = String(decoding: line, as: UTF8.self)
    }

    var description: String { text }

    /// Whether this is an event (has `event`) rather than a reply.
    var isEvent: Bool { object["event"] != nil }

    /// The normalized value of a field (`nil` when absent).
    subscript(field: String) -> JSONTree? {
        object[field].map(JSONTree.init)
    }

    /// The `id` field: `.null` for `"id":null`, `nil` if absent.
    var id: JSONTree? { self["id"] }
    /// The `ok` field when it is a boolean.
    var ok: Bool? { self["ok"]?.bool }
    /// The `event` field when it is a string.
    var event: String? { self["event"]?.string }
    /// The `error` object's `code`, for failure replies.
    var errorCode: String? { self["error"]?["code"]?.string }
    /// The `error` object's `message`, for failure replies.
    var errorMessage: String? { self["error"]?["message"]?.string }
    /// A string field.
    func string(_ field: String) -> String? { self[field]?.string }
    /// An integer field.
    func integer(_ field: String) -> Int64? { self[field]?.integer }
}
