import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

/// docs/protocol.md "Memory", measured on a spawned `observatoryd` by its resident
/// memory (`VmRSS`): what one client, or a thousand, can make the daemon hold.
///
/// Each case is scaled down from the issue's figures (docs/configuration.md has
/// those, measured with the release build) so that the debug build runs it in
/// seconds, and each bound sits well below what the daemon held before the cap
/// that the case guards.
@Suite(.serialized) struct MemoryDaemonTests {
    private let launcher = DaemonLauncher()
    private static let mebibyte = 1 << 20

    /// A value of `count` bytes that differs from every other made with another `seed`.
    private static func value(_ seed: Int, bytes count: Int) -> String {
        let stamp = String(seed)
        return stamp + String(repeating: "x", count: count - stamp.count)
    }

    /// Every change of a key with large values used to stay in the history until
    /// 100,000 changes: each 400 KB set grew the daemon by 400 KB (280 MB here).
    @Test func largeSetsOnOneKeyStayWithinTheHistorysBytes() throws {
        let directory = try TemporaryDirectory()
        let (process, _, port, _) = try launcher.launchListening(["--data", directory.path])
        defer { launcher.stopIfRunning(process) }
        let client = try LineClient(port: port)
        #expect(try client.request(#"{"op":"ping"}"#)["ok"] == true)
        let start = try Self.residentBytes(of: process)
        for seed in 0..<700 {
            let reply = try client.request(#"{"op":"set","key":"big","value":"\#(Self.value(seed, bytes: 400_000))"}"#)
            try #require(reply["ok"] == true, "\(reply)")
        }
        let growth = try Self.residentBytes(of: process) - start
        print("700 sets of 400 KB: grew \(growth / Self.mebibyte) MiB")
        #expect(growth <= 160 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB for 700 sets of 400 KB")
    }

    /// A full store refuses the write that would pass `limits.maxStoreBytes`, names
    /// the limit, and goes on reading.
    @Test func creatingLargeKeysStopsAtTheStoresBytesAndReadsGoOn() throws {
        let directory = try TemporaryDirectory()
        let configuration = directory.path(of: "observatory.json")
        try Data(#"{"limits":{"maxStoreBytes":67108864}}"#.utf8).write(to: URL(fileURLWithPath: configuration))
        let (process, _, port, _) = try launcher.launchListening(
            ["--config", configuration, "--data", directory.path(of: "data")])
        defer { launcher.stopIfRunning(process) }
        let client = try LineClient(port: port)
        #expect(try client.request(#"{"op":"ping"}"#)["ok"] == true)
        let start = try Self.residentBytes(of: process)
        var refusal: JSONValue?
        for seed in 0..<400 where refusal == nil {
            let reply = try client.request(
                #"{"op":"set","key":"k\#(seed)","value":"\#(Self.value(seed, bytes: 400_000))"}"#)
            if reply["ok"] != true { refusal = reply["error"] }
        }
        let growth = try Self.residentBytes(of: process) - start
        let error = try #require(refusal, "400 keys of 400 KB were all accepted under a 64 MiB cap")
        #expect(error["code"] == "limit_exceeded")
        #expect(error["message"]?.stringValue?.contains("limits.maxStoreBytes") == true)
        #expect(growth <= 128 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB")
        #expect(try client.request(#"{"op":"get","key":"k1"}"#)["ok"] == true)
        #expect(try client.request(#"{"op":"delete","key":"k1"}"#)["ok"] == true, "a full store takes deletes")
    }

    /// Unfinished lines count as the buffers they take, not as the bytes received,
    /// and what a burst of them took goes back to the system once they are gone.
    /// The cap holds up to one read (64 KiB) per connection on top, for the read
    /// that finds it exceeded; counted as received, the daemon grew 81 MiB here.
    @Test(
        .enabled(
            if: !Self.isThreadSanitized,
            "the thread sanitizer's allocator keeps freed memory and ignores glibc's settings: measured in the plain build"
        )
    )
    func unfinishedLinesCountAsAllocatedAndTheirMemoryGoesBack() throws {
        let limit = FileDescriptorLimit.raiseToMaximum().after
        try #require(limit > 1_000, "this test needs an open-file limit above 1,000, not \(limit)")
        let directory = try TemporaryDirectory()
        let configuration = directory.path(of: "observatory.json")
        try Data(#"{"limits":{"maxBufferedInputBytes":67108864}}"#.utf8).write(to: URL(fileURLWithPath: configuration))
        let (process, _, port, _) = try launcher.launchListening(["--config", configuration, "--fsync", "none"])
        defer { launcher.stopIfRunning(process) }
        let start = try Self.residentBytes(of: process)
        let line = Array(#"{"op":"set","key":"x","value":""#.utf8) + [UInt8](repeating: 0x79, count: Self.mebibyte)
        var senders = try (0..<300).map { _ in
            (socket: try StreamSocket.connect(host: "127.0.0.1", port: port), sent: 0)
        }
        defer { for sender in senders { sender.socket.close() } }
        var peak = 0
        var idleRounds = 0
        let deadline = Date().addingTimeInterval(30)
        // Send what each socket takes until none takes more (the daemon stopped
        // reading them, the kernel's buffers are full) or every line is out.
        while idleRounds < 20, Date() < deadline, senders.contains(where: { $0.sent < line.count }) {
            var progressed = false
            for index in senders.indices where senders[index].sent < line.count {
                let end = min(line.count, senders[index].sent + 65_536)
                let sent = try line[senders[index].sent..<end].withUnsafeBytes { try senders[index].socket.send($0) }
                senders[index].sent += sent
                progressed = progressed || sent > 0
            }
            peak = max(peak, try Self.residentBytes(of: process))
            idleRounds = progressed ? 0 : idleRounds + 1
            if !progressed { _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(50)) }
        }
        // The kernel may hold much of what was sent: the daemon reads it after the
        // last send, so its peak comes later. Sampled for three seconds.
        for _ in 0..<60 {
            peak = max(peak, try Self.residentBytes(of: process))
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(50))
        }
        let growth = peak - start
        print("300 unfinished lines of 1 MiB: grew \(growth / Self.mebibyte) MiB at the peak")
        #expect(growth <= 72 * Self.mebibyte, "grew \(growth / Self.mebibyte) MiB under a 64 MiB cap")
        for sender in senders { sender.socket.close() }
        senders = []
        try waitUntil("the memory of closed connections given back", timeout: .seconds(10)) {
            try Self.residentBytes(of: process) - start <= 16 * Self.mebibyte
        }
    }

    /// Whether this test process (and so the daemon built with it) runs under
    /// ThreadSanitizer, whose runtime defines `__tsan_init`.
    private static let isThreadSanitized = dlsym(nil, "__tsan_init") != nil

    /// The resident memory of `process`, from `/proc/PID/status`.
    private static func residentBytes(of process: Process) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw TestFailure(description: "no VmRSS in /proc/\(process.processIdentifier)/status") }
        return kibibytes * 1_024
    }
}
