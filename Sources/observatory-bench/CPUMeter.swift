import Foundation

/// CPU time of the server under test and of this benchmark over a measurement, in
/// percent of one core: it shows whether the driver had room to spare (a driver at
/// 100 % measures itself) and whether the server was the one at its limit.
struct CPUMeter {
    /// Busy percentages of one core over the measured time.
    struct Reading {
        let server: Double
        let bench: Double
    }

    private let serverPID: Int32
    private let start = MonotonicClock.now()
    private let serverStart: Double?
    private let benchStart = Self.ownSeconds()

    init(serverPID: Int32) {
        self.serverPID = serverPID
        serverStart = Self.seconds(of: serverPID)
    }

    /// The percentages since `init`; nil if the server's CPU time cannot be read.
    func read() -> Reading? {
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        guard elapsed > 0, let serverStart, let serverNow = Self.seconds(of: serverPID) else { return nil }
        return Reading(
            server: 100 * (serverNow - serverStart) / elapsed,
            bench: 100 * (Self.ownSeconds() - benchStart) / elapsed)
    }

    /// User plus system time of process `pid`, from fields 14 and 15 of /proc/PID/stat.
    private static func seconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func ownSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}
