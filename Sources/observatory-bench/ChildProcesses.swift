import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The pids of the servers this benchmark started, so that they are stopped also
/// when the benchmark itself is interrupted (Ctrl-C, SIGTERM): an orphaned server
/// would hold a core and a port on a shared machine.
enum ChildProcesses {
    private static let running = Mutex<Set<Int32>>([])

    static func add(_ pid: Int32) {
        running.withLock { _ = $0.insert(pid) }
    }

    static func remove(_ pid: Int32) {
        running.withLock { _ = $0.remove(pid) }
    }

    /// On SIGINT or SIGTERM: sends SIGTERM to every server still running, then exits.
    ///
    /// - Returns: the signal sources; the caller keeps them alive as long as this should hold.
    static func stopAllOnInterrupt() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}
