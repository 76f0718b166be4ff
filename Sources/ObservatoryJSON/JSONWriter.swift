/// Writes compact JSON bytes directly into a byte array.
///
/// Internal: used by ``JSONValue/encode(into:)`` and by the reply and event
/// encoders, which write their fixed parts as literals and never build a
/// ``JSONValue`` tree for a reply.
package enum JSONWriter {
    /// Appends ASCII text that needs no escaping (keys and punctuation known at compile time).
    package static func writeLiteral(_ literal: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `,"version":…,"author":…,"session":…`: who made a change and
    /// when, as every event and every snapshot entry carries it.
    package static func writeChangeStamp(version: Int64, author: String, session: String, into buffer: inout [UInt8]) {
        writeLiteral(",\"version\":", into: &buffer)
        write(version, into: &buffer)
        writeLiteral(",\"author\":", into: &buffer)
        write(author, into: &buffer)
        writeLiteral(",\"session\":", into: &buffer)
        write(session, into: &buffer)
    }

    /// Appends any value.
    package static func write(_ value: JSONValue, into buffer: inout [UInt8]) {
        switch value {
        case .null:
            writeLiteral("null", into: &buffer)
        case .bool(let bool):
            writeLiteral(bool ? "true" : "false", into: &buffer)
        case .integer(let integer):
            write(integer, into: &buffer)
        case .double(let double):
            write(double, into: &buffer)
        case .string(let string):
            write(string, into: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                write(element, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                write(member.key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                write(member.value, into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Appends an integer in decimal, without going through `String`.
    package static func write(_ integer: Int64, into buffer: inout [UInt8]) {
        if integer < 0 {
            buffer.append(UInt8(ascii: "-"))
        }
        var magnitude = integer.magnitude
        // 20 digits hold UInt64.max; digits are produced last-first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.append(contentsOf: digits[start...])
        }
    }

    /// Appends a double in its shortest round-trip form. Whole values up to 2^53 are
    /// written as integers (`2.0` → `2`, which docs/protocol.md allows); negative zero as
    /// `-0.0` so its sign survives; non-finite values, which JSON cannot express, as `null`.
    package static func write(_ double: Double, into buffer: inout [UInt8]) {
        guard double.isFinite else {
            writeLiteral("null", into: &buffer)
            return
        }
        if double.magnitude <= 9_007_199_254_740_992, let integer = JSONNumber.exactInteger(double),
            !(integer == 0 && double.sign == .minus)
        {
            write(integer, into: &buffer)
            return
        }
        // Swift's description is the shortest text that reads back as the same
        // double, in a form JSON accepts ("0.1", "5e-324", "1e+22", "-0.0").
        buffer.append(contentsOf: double.description.utf8)
    }

    /// Appends a quoted string, escaping `"`, `\` and control characters (U+0000–U+001F).
    /// Runs without anything to escape are copied in one step.
    package static func write(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var mutableString = string
        mutableString.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while index < utf8.count {
                // Eight bytes at a time while none needs escaping: long values are
                // mostly such runs, and this is where encoding an event spends its time.
                if index + 8 <= utf8.count, !mayNeedEscape(utf8, at: index) {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                    writeEscape(of: byte, into: &buffer)
                    runStart = index + 1
                }
                index += 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes at `index` is a control character, `"` or `\\`.
    private static func mayNeedEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        return JSONBytes.wordNeedsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
    }

    private static func writeEscape(of byte: UInt8, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            writeLiteral("u00", into: &buffer)
            buffer.append(hexDigits.utf8Start[Int(byte >> 4)])
            buffer.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
