import ObservatoryClient
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

@Suite struct CommandLineValueTests {
    private struct Unreadable: Error, CustomStringConvertible {
        var description: String { "there is no such file" }
    }

    /// An input whose standard input holds `standardInput` and whose only file is `/tmp/big.json`.
    private func input(standardInput: String = "", file: String = "") -> CommandLineInput {
        CommandLineInput(
            readStandardInput: { Array(standardInput.utf8) },
            readFile: { path in
                guard path == "/tmp/big.json" else { throw Unreadable() }
                return Array(file.utf8)
            })
    }

    @Test func aDashReadsTheValueFromStandardInputAsJSON() throws {
        let parsed = try CommandLineArguments.parse(
            ["set", "k", "-"], input: input(standardInput: "{\"on\": true}\n"))
        #expect(parsed.command == .set(key: "k", value: ["on": true]))
    }

    @Test func anAtReadsTheValueFromAFileOfAnySize() throws {
        let big = String(repeating: "x", count: 200_000)
        let parsed = try CommandLineArguments.parse(["set", "k", "@/tmp/big.json"], input: input(file: "\"\(big)\""))
        #expect(parsed.command == .set(key: "k", value: .string(big)))
    }

    @Test func withStringWhatIsReadIsTheStringAsIs() throws {
        let piped = try CommandLineArguments.parse(
            ["set", "k", "-", "--string"], input: input(standardInput: "not json\n"))
        #expect(piped.command == .set(key: "k", value: "not json\n"))
        #expect(
            try CommandLineArguments.parse(["set", "k", "tru", "--string"]).command == .set(key: "k", value: "tru"))
        #expect(throws: CommandLineUsageError("--string only goes with set")) {
            try CommandLineArguments.parse(["get", "k", "--string"])
        }
    }

    @Test func contentThatIsNotJSONIsAnErrorThatSuggestsString() {
        #expect {
            try CommandLineArguments.parse(["set", "k", "-"], input: input(standardInput: "red\n"))
        } throws: { error in
            let message = (error as? CommandLineUsageError)?.message ?? ""
            return message.hasPrefix("set: standard input is not valid JSON") && message.contains("--string")
        }
    }

    @Test func aFileThatCannotBeReadIsAUsageErrorNamingIt() {
        #expect(throws: CommandLineUsageError("set: cannot read VALUE from file 'nope': there is no such file")) {
            try CommandLineArguments.parse(["set", "k", "@nope"], input: input())
        }
    }

    @Test func theStringsDashAndAtAreSetAsJSON() throws {
        #expect(try CommandLineArguments.parse(["set", "k", "\"-\""]).command == .set(key: "k", value: "-"))
        #expect(try CommandLineArguments.parse(["set", "k", "\"@x\""]).command == .set(key: "k", value: "@x"))
        #expect(try CommandLineArguments.parse(["set", "k", "@"]).command == .set(key: "k", value: "@"))
    }

    @Test(arguments: ["tru", "nul", "fals", "True", "NULL", "ture", "flase", "01", "1e999", "1.", "+5", "1.2.3", "-01"])
    func nearJSONIsRefusedWithAHintToQuote(text: String) {
        #expect {
            try CommandLineArguments.parse(["set", "k", text])
        } throws: { error in
            let message = (error as? CommandLineUsageError)?.message ?? ""
            return message.contains("'\"\(text)\"' or --string")
        }
    }

    @Test(arguments: ["red", "tr", "nil", "none", "yes", "12:30", "3rd", "10px", "hello world", "fa"])
    func plainWordsStayStrings(text: String) throws {
        #expect(try CommandLineArguments.parse(["set", "k", text]).command == .set(key: "k", value: .string(text)))
    }

    @Test func aLongValueIsPreviewedNotPrintedWhole() {
        let big = JSONValue.string(String(repeating: "x", count: 1_000))
        let preview = ChangeFormatter.preview(big)
        #expect(preview == "\"" + String(repeating: "x", count: 39) + "… (1002 bytes)")
        #expect(ChangeFormatter.preview("red") == "\"red\"")
    }
}
