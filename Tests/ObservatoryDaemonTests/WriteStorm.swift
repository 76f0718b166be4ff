import Dispatch
import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// Writers on threads of their own, each setting its key `storm.w<i>` to 1, 2,
/// 3, … with a request id per value, one write at a time, until its connection
/// breaks, `stop()` is called, or it has written `maxWrites`.
///
/// Thread safety: every field the writers change is in one `Locked` box, held
/// only to read or record a number, never across a request.
final class WriteStorm: Sendable {
    private struct Progress {
        var lastAcknowledged: [Int]
        var acknowledgedCount = 0
        var isStopping = false
        var failures: [String] = []
    }

    private let progress: Locked<Progress>
    private let finished = DispatchGroup()
    private let runID = UUID().uuidString.prefix(8)

    /// Starts `writers` writers on the node at `port`. With `retriesUnavailable`, a
    /// write answered `unavailable` is sent again with the same request id.
    init(writers: Int, port: Int, retriesUnavailable: Bool = false, maxWrites: Int = 5_000) {
        progress = Locked(Progress(lastAcknowledged: Array(repeating: 0, count: writers)))
        for writer in 0..<writers {
            finished.enter()
            // A thread each: the writers block on their sockets, and the global
            // queue runs only as many blocks at once as there are cores.
            Thread { [self] in
                defer { finished.leave() }
                write(as: writer, port: port, retriesUnavailable: retriesUnavailable, maxWrites: maxWrites)
            }.start()
        }
    }

    private func write(as writer: Int, port: Int, retriesUnavailable: Bool, maxWrites: Int) {
        guard let client = try? LineClient(port: port),
            (try? client.request(#"{"op":"hello","protocol":1,"name":"writer\#(writer)"}"#))?["ok"] == true
        else { return record(writer, failure: "writer \(writer) could not connect") }
        var value = 1
        var attempts = 0
        while value <= maxWrites, !progress.withLock({ $0.isStopping }) {
            let request =
                #"{"op":"set","key":"storm.w\#(writer)","value":\#(value),"requestId":"\#(runID)-\#(writer)-\#(value)"}"#
            // A broken connection (the node was killed) ends this writer.
            guard let reply = try? client.request(request) else { return }
            if reply["ok"] == true {
                progress.withLock {
                    $0.lastAcknowledged[writer] = value
                    $0.acknowledgedCount += 1
                }
                value += 1
                attempts = 0
            } else if retriesUnavailable, reply["error"]?["code"] == "unavailable", attempts < 20 {
                attempts += 1
            } else {
                return record(writer, failure: "value \(value) answered \(reply)")
            }
        }
    }

    private func record(_ writer: Int, failure: String) {
        progress.withLock { $0.failures.append("writer \(writer): \(failure)") }
    }

    /// Writes acknowledged so far, by every writer.
    var acknowledgedCount: Int { progress.withLock { $0.acknowledgedCount } }
    /// The last value acknowledged to each writer (0 for none).
    var lastAcknowledged: [Int] { progress.withLock { $0.lastAcknowledged } }
    /// What went wrong other than a broken connection.
    var failures: [String] { progress.withLock { $0.failures } }

    /// Asks every writer to stop after its write under way.
    func stop() {
        progress.withLock { $0.isStopping = true }
    }

    /// Waits until every writer has returned.
    func waitUntilStopped() {
        stop()
        _ = finished.wait(timeout: .now() + 60)
    }

    /// Checks the rules of a storm against a node that lived through it: every
    /// acknowledged value is there (or the one after it, written but not
    /// acknowledged when the connection broke), and `watcher`, observing
    /// `storm.` since before the first write, received every value of every key
    /// once, in increasing revision order.
    /// `context` is added to a failure's message (the nodes' logs, say).
    func expectEveryAcknowledgedWrite(
        readingFrom probe: LineClient, watching watcher: LineClient, context: () -> String = { "" }
    ) throws {
        let acknowledged = lastAcknowledged
        var stored: [Int] = []
        for (writer, last) in acknowledged.enumerated() {
            var value = 0
            try waitUntil("storm.w\(writer) at \(last) or later", timeout: .seconds(20)) {
                value = Int(try probe.request(#"{"op":"get","key":"storm.w\#(writer)"}"#)["value"]?.integerValue ?? 0)
                return value >= last
            }
            #expect(value <= last + 1, "storm.w\(writer) holds \(value), acknowledged up to \(last)")
            stored.append(value)
        }
        var seen = Array(repeating: 0, count: acknowledged.count)
        var lastVersion: Int64 = 0
        while seen != stored {
            let event = try watcher.next(timeout: 20)
            guard case .string(let key)? = event["key"], key.hasPrefix("storm.w"),
                let writer = Int(key.dropFirst("storm.w".count)), writer < seen.count,
                let value = event["new"]?.integerValue, let version = event["version"]?.integerValue
            else {
                Issue.record("unexpected message \(event)\n\(context())")
                return
            }
            #expect(version > lastVersion, "revisions go back: \(version) after \(lastVersion)")
            #expect(Int(value) == seen[writer] + 1, "storm.w\(writer): \(value) after \(seen[writer])")
            lastVersion = version
            seen[writer] = Int(value)
        }
    }
}
