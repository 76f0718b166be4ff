import Dispatch
import Foundation
import Observatory

#if canImport(Glibc)
    import Glibc
#endif

/// The pids of the servers this benchmark started, and the temporary directories
/// they write in, so that they are stopped and removed also when the benchmark
/// itself is interrupted (Ctrl-C, SIGTERM): an orphaned server would hold a core and
/// a port on a shared machine, and etcd's data would be left in the temporary folder.
///
/// In `Locked` boxes (pthread mutexes ThreadSanitizer sees), held only to change or copy the sets.
enum ChildProcesses {
    private static let running = Locked<Set<Int32>>([])
    private static let directories = Locked<Set<String>>([])

    static func add(_ pid: Int32) {
        running.withLock { _ = $0.insert(pid) }
    }

    static func remove(_ pid: Int32) {
        running.withLock { _ = $0.remove(pid) }
    }

    /// Records a directory to remove if the benchmark is interrupted.
    static func add(directory: String) {
        directories.withLock { _ = $0.insert(directory) }
    }

    /// Forgets a directory the benchmark removed itself.
    static func remove(directory: String) {
        directories.withLock { _ = $0.remove(directory) }
    }

    /// On SIGINT or SIGTERM: sends SIGTERM to every server still running, waits for
    /// them (at most 5 s), removes the recorded directories, then exits.
    ///
    /// - Returns: the signal sources; the caller keeps them alive as long as this should hold.
    static func stopAllOnInterrupt() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let pids = running.withLock { $0 }
                for pid in pids { kill(pid, SIGTERM) }
                // Bounded: 100 checks 50 ms apart; a server still running after that keeps its directory's files.
                for _ in 0..<100 where pids.contains(where: isRunning) { usleep(50_000) }
                for directory in directories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) }
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// Whether `pid` still runs: it exists and is not a zombie waiting to be reaped.
    private static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }
}
