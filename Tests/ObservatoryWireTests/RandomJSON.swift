/// A small deterministic generator (SplitMix64), so that random tests fail the
/// same way on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

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
