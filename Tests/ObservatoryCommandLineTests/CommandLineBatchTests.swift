import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

/// `observatory batch` reads its operations as JSON, from standard input or a file.
@Suite struct CommandLineBatchTests {
    private func input(standardInput: String = "", files: [String: String] = [:]) -> CommandLineInput {
        CommandLineInput(
            readStandardInput: { Array(standardInput.utf8) },
            readFile: { path in
                guard let content = files[path] else { throw CommandLineUsageError("no such file") }
                return Array(content.utf8)
            })
    }

    private let ops =
        #"[{"op":"check","key":"lock","ifVersion":4},{"op":"set","key":"job","value":{"n":1},"ttl":60},"#
        + #"{"op":"delete","key":"queue","ifVersion":3},{"op":"set","key":"me","value":true,"ephemeral":true}]"#

    private var expected: [BatchOperation<JSONValue>] {
        [
            .check(key: "lock", ifVersion: 4),
            .set(key: "job", value: .object(["n": .integer(1)]), ttl: 60),
            .delete(key: "queue", ifVersion: 3),
            .set(key: "me", value: .bool(true), sessionBound: true),
        ]
    }

    @Test func operationsComeFromStandardInputWithoutAnArgumentOrWithADash() throws {
        for arguments in [["batch"], ["batch", "-"]] {
            let parsed = try CommandLineArguments.parse(arguments, input: input(standardInput: ops))
            #expect(parsed.command == .batch(operations: expected))
        }
    }

    @Test func operationsComeFromAFileNamedWithOrWithoutAnAt() throws {
        for arguments in [["batch", "@ops.json"], ["batch", "ops.json"]] {
            let parsed = try CommandLineArguments.parse(arguments, input: input(files: ["ops.json": ops]))
            #expect(parsed.command == .batch(operations: expected))
        }
    }

    @Test func anObjectWithOpsIsReadAsTheArray() throws {
        let parsed = try CommandLineArguments.parse(["batch"], input: input(standardInput: #"{"ops":\#(ops)}"#))
        #expect(parsed.command == .batch(operations: expected))
    }

    @Test func aWrongOperationIsRefusedNamingItsIndex() {
        let cases = [
            (#"[{"op":"set","key":"a","value":1},{"op":"check","key":"b"}]"#, "operation 1: a check needs"),
            (#"[{"op":"move","key":"a"}]"#, "operation 0: \"op\" must be"),
            (#"[{"op":"set","key":"a"}]"#, "operation 0: a set needs a \"value\""),
            (#"[{"op":"delete","key":"a","ifVersion":"3"}]"#, "operation 0: \"ifVersion\" must be a whole number"),
            (#"[]"#, "there are no operations"),
            (#"{"op":"set"}"#, "must be a JSON array"),
            (#"[{"op":"set""#, "is not valid JSON"),
        ]
        for (json, message) in cases {
            #expect(throws: CommandLineUsageError.self, "\(json)") {
                try CommandLineArguments.parse(["batch"], input: input(standardInput: json))
            }
            do {
                _ = try CommandLineArguments.parse(["batch"], input: input(standardInput: json))
            } catch {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
    }

    @Test func batchTakesAtMostOneSourceAndHasItsOwnHelp() throws {
        #expect(throws: CommandLineUsageError.self) {
            try CommandLineArguments.parse(["batch", "a.json", "b.json"], input: input())
        }
        #expect(try CommandLineArguments.parse(["batch", "--help"]).command == .commandHelp("batch"))
        #expect(CommandLineHelp.usage(of: "batch")?.contains("all or nothing") == true)
        #expect(CommandLineHelp.usage.contains("batch [FILE]"))
    }
}
