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
// OBSERVATORY_HOST and OBSERVATORY_PORT choose another server (the daemon's
// address, as for observatoryd and the CLI); the nodes of a cluster go in
// OBSERVATORY_SERVERS as a list, `127.0.0.1:7070,127.0.0.1:7071`, and the mirror
// moves to the next one when its node goes away.
//
// While the server is away, it says so once and then when it is back, not at
// every retry.

/// Prints one line at once, also when standard output is a file or a pipe.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The object that observes the sky; its receiver keeps its observations alive.
final class SkyWatcher: Observer {
    let receiver = Receiver()
}

/// Stops with exit status 2 (a bad configuration), naming the variable at fault.
func badVariable(_ name: String, _ problem: String) -> Never {
    FileHandle.standardError.write(Data("SkyWatcher: \(name) \(problem)\n".utf8))
    exit(2)
}

let environment = ProcessInfo.processInfo.environment
var defaultPort = 7070
if let text = environment["OBSERVATORY_PORT"] {
    guard let port = Int(text), (1...65535).contains(port) else {
        badVariable("OBSERVATORY_PORT", "is '\(text)': it must be a port, 1 to 65535")
    }
    defaultPort = port
}
let servers = environment["OBSERVATORY_SERVERS"].map { ("OBSERVATORY_SERVERS", $0) }
let (source, hosts) = servers ?? ("OBSERVATORY_HOST", environment["OBSERVATORY_HOST"] ?? "127.0.0.1")
if source == "OBSERVATORY_HOST", hosts.contains(",") {
    badVariable(source, "is '\(hosts)', a list: it names one server; put a list in OBSERVATORY_SERVERS")
}
var endpoints: [Endpoint] = []
for host in hosts.split(separator: ",", omittingEmptySubsequences: false) {
    do {
        endpoints.append(try Endpoint(parsing: String(host), defaultPort: defaultPort))
    } catch {
        badVariable(source, "is '\(hosts)': \(error)")
    }
}
var configuration = ClientConfiguration(endpoints: endpoints, name: "sky-watcher")
// Errors only: what the client warns about (a reset, a lost connection) the connection lines say already.
configuration.logger = .init(level: .error, sink: StandardErrorLogSink())

// The client connects as soon as it exists; its messages wait on this queue until
// every observation below is in place, so the first line ("connecting") is never missed.
let delivery = DispatchQueue(label: "sky-watcher.delivery")
delivery.suspend()
configuration.deliveryQueue = delivery

let client = ObservatoryClient(configuration: configuration)
let color = client.variable("sky.color", default: "blue")
let watcher = SkyWatcher()

let report = ConnectionReport()
watcher.observe(client.connectionState) { (update: Update<ConnectionState>) in
    if let line = report.line(for: update.new) { say(line) }
}
watcher.observe(color) { (update: Update<String>, author: AnyAuthor) in
    let who = (author as? Author)?.name ?? (author as? Reset)?.description ?? "resync"
    say("sky.color: \(update.old) → \(update.new) by \(who)")
}
say("sky.color is \(color.value) until the server says otherwise; change it with:")
say("    swift run observatory set sky.color red")
delivery.resume()

signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
interrupts.setEventHandler {
    client.close()
    exit(0)
}
interrupts.resume()
dispatchMain()
