/// `observatoryd --check`: reads a data directory without changing it and says
/// what it holds, like `redis-check-aof`.
public enum DataDirectoryCheck {
    /// The outcome: the report to print, and whether the directory would load.
    public struct Outcome: Sendable {
        /// Lines for a person.
        public let report: String
        /// Whether the daemon would start on this directory (a torn tail is fine: it is cut at start).
        public let isLoadable: Bool
    }

    /// Checks the directory at `path`.
    public static func run(directory path: String, files: any StorageFiles = SystemFiles()) -> Outcome {
        let directory = DataDirectory(path: path, files: files)
        let state: RecoveredState
        do {
            state = try StorageRecovery(directory: directory, repair: false).recover()
        } catch {
            return Outcome(
                report: "data directory: \(path)\nstatus: cannot be loaded\n\(error.message)", isLoadable: false)
        }
        guard !state.isNew else {
            return Outcome(
                report: "data directory: \(path)\nstatus: no data files (a new history would begin)", isLoadable: true)
        }
        var lines = [
            "data directory: \(path)",
            "epoch: \(state.epoch)",
            "revision: \(state.revision)",
            "keys: \(state.entries.count)",
            "session numbers used up to: \(state.sessionReservation)",
            "files:",
        ]
        lines += state.files.map(describe)
        let total = state.files.reduce(0) { $0 + $1.bytes }
        lines.append("total: \(total) bytes in \(state.files.count) files")
        let torn = state.files.filter { $0.tornTail != nil }
        lines.append(torn.isEmpty ? "status: ok" : "status: ok; the torn record above is cut when the daemon starts")
        return Outcome(report: lines.joined(separator: "\n"), isLoadable: true)
    }

    private static func describe(_ file: RecoveredState.FileReport) -> String {
        var line = "  \(file.name): \(file.bytes) bytes, \(file.records) records"
        if let revisions = file.revisions {
            line +=
                file.name.hasPrefix("snapshot")
                ? ", as of revision \(revisions.upperBound)"
                : ", revisions \(revisions.lowerBound)–\(revisions.upperBound)"
        }
        if let torn = file.tornTail {
            line += "; torn record at \(torn) (an interrupted write)"
        }
        return line
    }
}
