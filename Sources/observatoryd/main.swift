import Foundation
import ObservatoryServer

// The daemon is a thin shell: everything, including argument parsing, is in the library.
let status = Daemon.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    print: { print($0) },
    printError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
)
exit(status)
