import Foundation
import ObservatoryDaemon

// The daemon is a thin shell: everything, including argument parsing, is in ObservatoryDaemon.
let status = Daemon.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    print: { print($0) },
    printError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
)
exit(status)
