// The `observatory` command-line tool: get, set, delete, list and watch
// shared values of an observatoryd server. All logic lives in
// ObservatoryCommandLine's `CommandLineTool`; this file wires the real output
// streams, standard input and files (for `set KEY -` and `set KEY @PATH`), the
// environment, and SIGINT, which ends a `watch` cleanly.
import Dispatch
import Foundation
import ObservatoryCommandLine

let output = CommandLineOutput(
    standardOutput: { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) },
    standardError: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
)
let input = CommandLineInput(
    readStandardInput: { Array(FileHandle.standardInput.readDataToEndOfFile()) },
    readFile: { path in
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw CommandLineUsageError(exists ? "it cannot be read" : "there is no such file")
        }
        return Array(data)
    }
)
let command = Task {
    await CommandLineTool.run(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
        input: input, output: output)
}
signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
interrupts.setEventHandler { command.cancel() }
interrupts.resume()
let exitCode = await command.value
exit(exitCode.rawValue)
