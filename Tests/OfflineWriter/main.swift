// A client process for the offline store's process tests: it mirrors one
// string key with an offline store, prints the value the mirror shows at once
// (before any snapshot can arrive), optionally writes a value through the
// mirror, prints that the write is saved, and then keeps running until the
// test kills it (SIGKILL: no chance to save anything more).
//
//     OfflineWriter <directory> <port> <key> [value]
//
// Output lines: `shown <value>`, then `written` after a write. Errors the
// client reports go to standard error.
import Dispatch
import Foundation
import Observatory
import ObservatoryClient

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: OfflineWriter <directory> <port> <key> [value]\n".utf8))
    exit(64)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

var configuration = ClientConfiguration(host: "127.0.0.1", port: port, name: "offline-writer")
configuration.offlineDirectory = arguments[1]
configuration.backoff = ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
let client = ObservatoryClient(configuration: configuration)
let reporter = FreeObserver()
reporter.observe(client.errors) { error in
    FileHandle.standardError.write(Data("error \(error.code): \(error.message)\n".utf8))
}
let mirror = client.variable(arguments[3], default: "none")
say("shown \(mirror.value)")
if arguments.count == 5 {
    mirror.value = arguments[4]
    say("written")
}
dispatchMain()
