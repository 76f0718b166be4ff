import Foundation

/// CPU time of the server under test, of this benchmark and of everything else on
/// the machine over a measurement, in percent of one core: it shows whether the
/// driver had room to spare (a driver at 100 % measures itself), whether the server
/// was the one at its limit, and whether other work disturbed the measurement.
struct CPUMeter {
    /// Busy percentages of one core over the measured time.
    struct Reading {
        /// The server's CPU time over the measured time, in seconds.
        let serverSeconds: Double
        let server: Double
        let bench: Double
        /// Every other process on the machine.
        let others: Double
    }

    private let serverPID: Int32
    private let start = MonotonicClock.now()
    private let serverStart: Double?
    private let benchStart = Self.ownSeconds()
    private let machineStart = Self.machineBusySeconds()

    init(serverPID: Int32) {
        self.serverPID = serverPID
        serverStart = Self.seconds(of: serverPID)
    }

    /// The percentages since `init`; nil if the server's CPU time cannot be read.
    func read() -> Reading? {
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        guard elapsed > 0, let serverStart, let serverNow = Self.seconds(of: serverPID),
            let machineStart, let machineNow = Self.machineBusySeconds()
        else { return nil }
        let serverSeconds = serverNow - serverStart
        let server = 100 * serverSeconds / elapsed
        let bench = 100 * (Self.ownSeconds() - benchStart) / elapsed
        let machine = 100 * (machineNow - machineStart) / elapsed
        return Reading(
            serverSeconds: serverSeconds, server: server, bench: bench, others: max(0, machine - server - bench))
    }

    /// Busy time of all cores (everything but idle and I/O wait), from the first line of /proc/stat.
    private static func machineBusySeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // user nice system idle iowait irq softirq steal
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
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
