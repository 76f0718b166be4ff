// The `observatory` command-line tool: get, set, delete, list and watch
// shared values of an observatoryd server. All logic lives in
// ObservatoryCommandLine's `CommandLineTool`; this file wires the real output
// streams and SIGINT, which ends a `watch` cleanly.
import Dispatch
import Foundation
import ObservatoryCommandLine

let output = CommandLineOutput(
    standardOutput: { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) },
    standardError: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
)
let command = Task {
    await CommandLineTool.run(arguments: Array(CommandLine.arguments.dropFirst()), output: output)
}
signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
interrupts.setEventHandler { command.cancel() }
interrupts.resume()
let exitCode = await command.value
exit(exitCode.rawValue)
