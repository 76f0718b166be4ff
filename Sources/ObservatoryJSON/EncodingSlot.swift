/// One node of the tree an encoding builds; turned into a ``JSONValue`` at the end.
package final class EncodingSlot {
    private enum Shape {
        case scalar(JSONValue)
        case array
        case object
    }

    /// Nothing encoded yet counts as an empty object, as Foundation's JSONEncoder does.
    private var shape = Shape.scalar(.object(JSONObject()))
    private var elements: [EncodingSlot] = []
    private var members: [(String, EncodingSlot)] = []

    package func store(_ value: JSONValue) {
        shape = .scalar(value)
    }

    package func becomeObject() {
        if case .object = shape { return }
        shape = .object
        members = []
    }

    package func becomeArray() {
        if case .array = shape { return }
        shape = .array
        elements = []
    }

    package func appendElement() -> EncodingSlot {
        let slot = EncodingSlot()
        elements.append(slot)
        return slot
    }

    package func appendMember(_ key: String) -> EncodingSlot {
        let slot = EncodingSlot()
        members.append((key, slot))
        return slot
    }

    package var elementCount: Int { elements.count }

    /// The finished value; a key encoded twice keeps its last value.
    package var value: JSONValue {
        switch shape {
        case .scalar(let value): return value
        case .array: return .array(elements.map(\.value))
        case .object: return .object(JSONObject(members.map { ($0.0, $0.1.value) }))
        }
    }
}
