import Dispatch
import Foundation
import Observatory
import ObservatoryClient
// SkyWatcher: mirrors the shared value `sky.color` of an observatoryd server
// as a local Var and prints every change with its author, until Ctrl-C.
//
//     swift run observatoryd                      # terminal 1
//     swift run SkyWatcher                        # terminal 2
//     swift run observatory set sky.color red     # terminal 3
//
// OBSERVATORY_HOST and OBSERVATORY_PORT choose another server; the nodes of a
// cluster go in OBSERVATORY_HOST as a list, `127.0.0.1:7070,127.0.0.1:7071`, and
// the mirror moves to the next one when its node goes away.

/// Prints one line at once, also when standard output is a file or a pipe.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The object that observes the sky; its receiver keeps its observations alive.
final class SkyWatcher: Observer {
    let receiver = Receiver()
}

let environment = ProcessInfo.processInfo.environment
let defaultPort = environment["OBSERVATORY_PORT"].flatMap(Int.init) ?? 7070
let hosts = (environment["OBSERVATORY_HOST"] ?? "127.0.0.1").split(separator: ",").map(String.init)
var endpoints: [Endpoint] = []
for host in hosts {
    do {
        endpoints.append(try Endpoint(parsing: host, defaultPort: defaultPort))
    } catch {
        say("OBSERVATORY_HOST: \(error)")
        exit(2)
    }
}
var configuration = ClientConfiguration(endpoints: endpoints, name: "sky-watcher")
configuration.logger = .init(level: .warning, sink: StandardErrorLogSink())

let client = ObservatoryClient(configuration: configuration)
let color = client.variable("sky.color", default: "blue")
let watcher = SkyWatcher()

watcher.observe(client.connectionState) { (update: Update<ConnectionState>) in
    say("connection: \(update.new)")
}
watcher.observe(color) { (update: Update<String>, author: AnyAuthor) in
    let who = (author as? Author)?.name ?? (author as? Reset)?.description ?? "resync"
    say("sky.color: \(update.old) → \(update.new) by \(who)")
}
say("sky.color is \(color.value) until the server says otherwise; change it with:")
say("    swift run observatory set sky.color red")

signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
interrupts.setEventHandler {
    client.close()
    exit(0)
}
interrupts.resume()
dispatchMain()
