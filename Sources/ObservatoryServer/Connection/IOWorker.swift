import Observatory
import Dispatch

/// One of the server's few serial I/O queues, with the connections waiting to flush.
///
/// A change observed by a thousand connections makes a thousand of them need a
/// flush at once. Instead of a Dispatch block per connection, they are collected
/// here and flushed by one block per worker, which keeps the writer's thread (it
/// delivers the change) quick and the I/O threads busy with sending only.
final class IOWorker: Sendable {
    /// The serial queue all socket work of this worker's connections runs on.
    let queue: DispatchQueue
    private let waiting = Locked<[Connection]>([])

    /// Creates a worker with a queue labelled `label`.
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Has `connection` flushed soon on this worker's queue.
    func scheduleFlush(of connection: Connection) {
        let isFirst = waiting.withLock { waiting in
            waiting.append(connection)
            return waiting.count == 1
        }
        if isFirst {
            queue.async { [self] in flushWaiting() }
        }
    }

    private func flushWaiting() {
        let connections = waiting.withLock { waiting in
            let taken = waiting
            waiting.removeAll(keepingCapacity: true)
            return taken
        }
        for connection in connections {
            connection.flushRequested()
        }
    }
}
