import ObservatoryWire

/// Random JSON texts that reach every rule of the grammar, with random spacing,
/// escapes and numbers near the edges, and random damage to them.
enum RandomJSON {
    static func text(using generator: inout some RandomNumberGenerator, depth: Int = 0) -> String {
        let space = [" ", "", "", "\n", "\t "].randomElement(using: &generator) ?? ""
        switch Int.random(in: 0..<(depth > 4 ? 6 : 9), using: &generator) {
        case 0: return ["null", "true", "false"].randomElement(using: &generator) ?? "null"
        case 1, 2: return number(using: &generator)
        case 3, 4, 5: return string(using: &generator)
        case 6:
            let count = Int.random(in: 0...4, using: &generator)
            let elements = (0..<count).map { _ in space + text(using: &generator, depth: depth + 1) + space }
            return "[" + elements.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0...4, using: &generator)
            let members = (0..<count).map { _ in
                string(using: &generator) + space + ":" + text(using: &generator, depth: depth + 1)
            }
            return "{" + space + members.joined(separator: "," + space) + "}"
        }
    }

    static func number(using generator: inout some RandomNumberGenerator) -> String {
        let mantissas = [
            "0", "1", "-1", "12", "1.0", "2.5", "-0.0", "0.1", "9007199254740993", "9223372036854775807",
            "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
            String(repeating: "9", count: Int.random(in: 300...312, using: &generator)),
        ]
        let exponents = ["", "", "", "e5", "E+2", "e-7", "e308", "e309", "e-400", "e400", "E-0"]
        return (mantissas.randomElement(using: &generator) ?? "0") + (exponents.randomElement(using: &generator) ?? "")
    }

    static func string(using generator: inout some RandomNumberGenerator) -> String {
        let pieces = [
            "a", "key", "sky.color", "é", "€", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\u0041", "\\u00e9",
            "\\uD83D\\uDE00",
            "\\uDE00", "\\uD83D", "\\x", " ", "plain text longer than eight bytes",
        ]
        let count = Int.random(in: 0...4, using: &generator)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined() + "\""
    }

    /// Replaces, inserts or deletes one byte, or cuts the text short.
    static func mutate(_ bytes: inout [UInt8], using generator: inout some RandomNumberGenerator) {
        let interesting: [UInt8] =
            Array("{}[]\",:\\ 0123456789-+.eEtfnu\n".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xFF]
        let byte = interesting.randomElement(using: &generator) ?? 0
        guard !bytes.isEmpty else {
            bytes.append(byte)
            return
        }
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: bytes[index] = byte
        case 1: bytes.insert(byte, at: index)
        case 2: bytes.remove(at: index)
        default: bytes.removeSubrange(index...)
        }
    }
}

extension RandomJSON {
    /// The text of `value` in a random spelling of the same value: spaces,
    /// numbers as `2.0` or `2e0`, escaped letters, members in another order,
    /// a member sent twice with the first value dropped.
    static func respell(_ value: JSONValue, using generator: inout some RandomNumberGenerator) -> String {
        let space = Bool.random(using: &generator) ? "" : " "
        switch value {
        case .integer(let integer) where Int.random(in: 0..<3, using: &generator) == 0:
            return Bool.random(using: &generator) ? "\(integer).0" : "\(integer)e0"
        case .string(let string) where Bool.random(using: &generator):
            let escaped = string.unicodeScalars.map { scalar in
                scalar.isASCII && scalar.properties.isAlphabetic
                    ? "\\u00" + String(scalar.value, radix: 16)
                    : String(JSONValue.string(String(scalar)).description.dropFirst().dropLast())
            }
            return "\"" + escaped.joined() + "\""
        case .array(let elements):
            return "[" + elements.map { space + respell($0, using: &generator) }.joined(separator: ",") + "]"
        case .object(let object):
            var members = object.members.map {
                "\(JSONValue.string($0.key))" + space + ":" + respell($0.value, using: &generator)
            }
            if !members.isEmpty, Bool.random(using: &generator) {
                members.shuffle(using: &generator)
            }
            if let first = object.members.first, Bool.random(using: &generator) {
                members.insert("\(JSONValue.string(first.key)):\"dropped\"", at: 0)
            }
            return "{" + space + members.joined(separator: ",") + "}"
        default:
            return value.description
        }
    }

    /// `value` with one leaf replaced by something else, or itself when it has no leaf to change.
    static func changed(_ value: JSONValue, using generator: inout some RandomNumberGenerator) -> JSONValue {
        switch value {
        case .array(var elements) where !elements.isEmpty:
            let index = Int.random(in: 0..<elements.count, using: &generator)
            elements[index] = changed(elements[index], using: &generator)
            return .array(elements)
        case .object(var object) where !object.isEmpty:
            let member = object.members[Int.random(in: 0..<object.count, using: &generator)]
            object[member.key] = changed(member.value, using: &generator)
            return .object(object)
        case .integer(let integer):
            return .integer(integer &+ 1)
        case .string(let string):
            return .string(string + "x")
        case .bool(let bool):
            return .bool(!bool)
        default:
            return .string("changed")
        }
    }
}
