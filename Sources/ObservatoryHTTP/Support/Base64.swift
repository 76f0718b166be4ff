/// Base64 (RFC 4648, standard alphabet, padded), for the WebSocket handshake's
/// key and accept values: a few lines here instead of Foundation in this module.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 with `=` padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let first = bytes[index]
            let second = index + 1 < bytes.count ? bytes[index + 1] : 0
            let third = index + 2 < bytes.count ? bytes[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            output.append(
                index + 1 < bytes.count ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "="))
            output.append(index + 2 < bytes.count ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of padded base64 `text`, or `nil` if it is not exactly that
    /// (wrong length, a character outside the alphabet, misplaced padding).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let isLastGroup = index + 4 == characters.count
            var values: [UInt8] = [0, 0, 0, 0]
            var padding = 0
            for offset in 0..<4 {
                let character = characters[index + offset]
                if character == UInt8(ascii: "=") && isLastGroup && offset >= 2 {
                    padding += 1
                    continue
                }
                guard padding == 0, let value = sextet(character) else { return nil }
                values[offset] = value
            }
            output.append(values[0] << 2 | values[1] >> 4)
            if padding < 2 { output.append(values[1] << 4 | values[2] >> 2) }
            if padding < 1 { output.append(values[2] << 6 | values[3]) }
            index += 4
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
