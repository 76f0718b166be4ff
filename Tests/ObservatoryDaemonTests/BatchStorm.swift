import Dispatch
import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire

/// Writers on threads of their own, each sending batches that set its 20 keys
/// `batch.w<i>.k<j>` all to the batch's number 1, 2, 3, …, one batch at a
/// time, until its connection breaks or `stop()` is called.
///
/// A batch applied whole leaves a writer's keys all at one number and one
/// version; a batch cut in half would leave two numbers.
///
/// Thread safety: every field the writers change is in one `Locked` box, held
/// only to read or record a number, never across a request.
final class BatchStorm: Sendable {
    /// The keys each batch sets.
    static let keysPerBatch = 20

    private struct Progress {
        /// Per writer: the last batch acknowledged, and the last one sent.
        var acknowledged: [Int]
        var sent: [Int]
        var acknowledgedCount = 0
        var isStopping = false
        var failures: [String] = []
    }

    private let progress: Locked<Progress>
    private let finished = DispatchGroup()

    /// Starts `writers` writers on the daemon at `port`, each continuing after
    /// the batch `after[i]` (what earlier storms of the same writer reached).
    init(writers: Int, port: Int, continuingAfter after: [Int]) {
        progress = Locked(Progress(acknowledged: after, sent: after))
        for writer in 0..<writers {
            finished.enter()
            Thread { [self] in
                defer { finished.leave() }
                write(as: writer, port: port, from: after[writer] + 1)
            }.start()
        }
    }

    private func write(as writer: Int, port: Int, from first: Int) {
        guard let client = try? LineClient(port: port) else { return }
        var number = first
        while !progress.withLock({ $0.isStopping }) {
            let ops = (0..<Self.keysPerBatch).map {
                #"{"op":"set","key":"\#(Self.key(writer, $0))","value":\#(number)}"#
            }
            progress.withLock { $0.sent[writer] = number }
            // A broken connection (the daemon was killed) ends this writer.
            guard let reply = try? client.request(#"{"op":"batch","ops":[\#(ops.joined(separator: ","))]}"#) else {
                return
            }
            guard reply["ok"] == true else {
                return progress.withLock { $0.failures.append("writer \(writer), batch \(number): \(reply)") }
            }
            progress.withLock {
                $0.acknowledged[writer] = number
                $0.acknowledgedCount += 1
            }
            number += 1
        }
    }

    /// The key `index` of `writer`.
    static func key(_ writer: Int, _ index: Int) -> String {
        "batch.w\(writer).k\(index)"
    }

    /// Batches acknowledged so far, by every writer.
    var acknowledgedCount: Int { progress.withLock { $0.acknowledgedCount } }
    /// The last batch acknowledged to each writer.
    var acknowledged: [Int] { progress.withLock { $0.acknowledged } }
    /// The last batch each writer sent.
    var sent: [Int] { progress.withLock { $0.sent } }
    /// What went wrong other than a broken connection.
    var failures: [String] { progress.withLock { $0.failures } }

    /// Waits until every writer has returned (their connections broke, or they were stopped).
    func waitUntilStopped() {
        progress.withLock { $0.isStopping = true }
        _ = finished.wait(timeout: .now() + 60)
    }
}
