import ObservatoryWire
import Testing

@Suite struct KeyRulesTests {
    /// The error for `key`, or nil if it is valid.
    private func keyError(_ key: String) -> WireError? {
        do {
            try KeyRules.validate(key: key)
            return nil
        } catch {
            return error
        }
    }

    private func prefixError(_ prefix: String) -> WireError? {
        do {
            try KeyRules.validate(prefix: prefix)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        "a", "kitchen.light.on", "ключ", "😀", "a/b:c-d_e", String(repeating: "k", count: 256), "x\u{200B}y",
    ])
    func validKeysPass(_ key: String) {
        #expect(keyError(key) == nil)
    }

    @Test func emptyKeysAreInvalid() {
        let error = keyError("")
        #expect(error?.code == .invalidKey)
        #expect(
            error?.message
                == "key must be 1–256 bytes of UTF-8 without whitespace or control characters: got an empty key")
    }

    @Test func keysLongerThan256BytesAreInvalidAndTheErrorSaysHowLong() {
        let error = keyError(String(repeating: "k", count: 300))
        #expect(error?.code == .invalidKey)
        #expect(
            error?.message == "key must be 1–256 bytes of UTF-8 without whitespace or control characters: got 300 bytes"
        )
        // 86 three-byte characters are 258 bytes although only 86 characters.
        #expect(keyError(String(repeating: "€", count: 86))?.code == .invalidKey)
        #expect(keyError(String(repeating: "€", count: 85)) == nil)
    }

    @Test(arguments: [
        "a b", "a\tb", "a\nb", "\u{85}", "a\u{A0}b", "\u{1680}", "\u{2003}", "\u{2028}", "\u{2029}", "\u{202F}",
        "\u{205F}", "\u{3000}",
    ])
    func keysWithUnicodeWhitespaceAreInvalid(_ key: String) {
        let error = keyError(key)
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("whitespace U+") == true)
    }

    @Test(arguments: ["a\u{0}b", "\u{7}", "a\u{7F}", "\u{9F}", "\u{1B}[0m"])
    func keysWithControlCharactersAreInvalid(_ key: String) {
        let error = keyError(key)
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("control character U+") == true)
    }

    @Test func theErrorNamesTheOffendingScalarAndItsByteOffset() {
        #expect(keyError("ab€ c")?.message.hasSuffix("got whitespace U+0020 at byte 5") == true)
        #expect(keyError("a\u{7}")?.message.hasSuffix("got control character U+0007 at byte 1") == true)
    }

    @Test func prefixesMayBeEmptyButOtherwiseFollowTheKeyRules() {
        #expect(prefixError("") == nil)
        #expect(prefixError("kitchen.") == nil)
        #expect(prefixError("a b")?.code == .invalidKey)
        #expect(
            prefixError(String(repeating: "p", count: 257))?.message
                == "prefix must be at most 256 bytes of UTF-8 without whitespace or control characters: got 257 bytes")
    }
}
