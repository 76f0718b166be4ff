import Observatory
import ObservatoryEtcd

/// Records what a watch delivers, for tests to wait on and inspect.
///
/// Thread safety: the updates are in a `Locked` box (a pthread mutex ThreadSanitizer understands), appended by the watch's thread
/// and read by the test's.
final class WatchRecorder: Sendable {
    private let updates = Locked<[EtcdWatch.Update]>([])

    /// The callback to give the watch.
    var record: @Sendable (EtcdWatch.Update) -> Void {
        { [self] update in updates.withLock { $0.append(update) } }
    }

    /// Every update so far.
    var all: [EtcdWatch.Update] {
        updates.withLock { $0 }
    }

    /// Every event delivered so far, in delivery order.
    var events: [EtcdWatchEvent] {
        all.flatMap { update -> [EtcdWatchEvent] in
            if case .events(let events) = update { return events }
            return []
        }
    }

    /// Whether a stream was created.
    var isCreated: Bool {
        all.contains { if case .created = $0 { true } else { false } }
    }

    /// How many times the stream broke.
    var interruptions: Int {
        all.filter { if case .interrupted = $0 { true } else { false } }.count
    }
}
