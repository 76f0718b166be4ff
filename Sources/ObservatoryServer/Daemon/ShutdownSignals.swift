import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGTERM and SIGINT into a call of a handler on a Dispatch queue, so the
/// daemon can shut down gracefully instead of dying mid-write.
///
/// The default disposition of each signal is set to ignore first, as Dispatch signal
/// sources require; the source then sees every delivery. Keep the value alive for as
/// long as signals should be handled.
public final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    /// Starts handling `signals`; `handler` gets the signal number, on `queue`.
    public init(
        signals: [Int32] = [SIGTERM, SIGINT],
        queue: DispatchQueue = .global(),
        handler: @escaping @Sendable (Int32) -> Void
    ) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops handling; the signals stay ignored.
    public func cancel() {
        for source in sources { source.cancel() }
    }

    /// The name of a signal for log lines (`SIGTERM`), or its number.
    public static func name(of number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}
