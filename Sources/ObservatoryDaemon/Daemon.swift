import Foundation
import ObservatoryLogging
import ObservatoryServer
import ObservatorySockets

/// What `observatoryd` does, as a function of its own module so its `main.swift` stays one line.
///
/// Parses the arguments, resolves the configuration (flag > environment > file >
/// default), raises the file limit, starts the server, and on SIGTERM or SIGINT
/// shuts it down gracefully.
public enum Daemon {
    /// Exit status after a clean shutdown, `--help` or `--version`.
    public static let exitSuccess: Int32 = 0
    /// Exit status when the server cannot start (address in use, ...).
    public static let exitFailure: Int32 = 1
    /// Exit status for a bad configuration, flag or environment variable.
    public static let exitBadConfiguration: Int32 = 2

    /// Runs the daemon and returns its exit status.
    ///
    /// - Parameters:
    ///   - arguments: the command line without the program name.
    ///   - environment: the process environment.
    ///   - print: where `--help` and `--version` text goes (standard output).
    ///   - printError: where configuration errors go (standard error).
    public static func run(
        arguments: [String],
        environment: [String: String],
        print: (String) -> Void,
        printError: (String) -> Void
    ) -> Int32 {
        let configuration: ServerConfiguration
        do {
            switch try DaemonCommand.parse(arguments) {
            case .help:
                print(DaemonCommand.usage)
                return exitSuccess
            case .version:
                print(Server.version)
                return exitSuccess
            case .run(let flags):
                configuration = try ServerConfiguration.resolve(
                    flags: flags, environment: ConfigurationOverrides(environment: environment))
            case .check(let flags):
                let resolved = try ServerConfiguration.resolve(
                    flags: flags, environment: ConfigurationOverrides(environment: environment))
                let outcome = DataDirectoryCheck.run(directory: resolved.dataDirectory)
                print(outcome.report)
                return outcome.isLoadable ? exitSuccess : exitFailure
            }
        } catch {
            printError("observatoryd: \(error)")
            return exitBadConfiguration
        }
        let logger = Logger(level: configuration.logLevel, sink: StandardErrorLogSink())
        return serve(configuration, logger: logger)
    }

    private static func serve(_ configuration: ServerConfiguration, logger: Logger) -> Int32 {
        // Before the server starts its threads: a SIGTERM from now on waits for the handler.
        let signals = ShutdownSignals()
        logFileLimit(FileDescriptorLimit.raiseToMaximum(), logger: logger)
        // Before anything large is allocated: freed buffers and values go back to the system.
        SystemMemory.returnFreedMemory()
        let server: Server
        do {
            server = try Server(configuration: configuration, logger: logger)
        } catch {
            logger.error(startFailure(error, configuration: configuration))
            return exitFailure
        }
        do {
            try server.start()
        } catch {
            logger.error(startFailure(error, configuration: configuration))
            server.stop()
            return exitFailure
        }
        signals.handle { number in
            logger.info("received \(ShutdownSignals.name(of: number))")
            server.stop()
        }
        server.waitUntilStopped()
        signals.cancel()
        return exitSuccess
    }

    /// Why the server cannot start, and what to do when the address is the trouble.
    static func startFailure(_ error: any Error, configuration: ServerConfiguration) -> String {
        guard let socketError = error as? SocketError else { return "cannot start: \(error)" }
        let address = "\(configuration.host):\(configuration.port)"
        let hint =
            switch socketError.errorNumber {
            case EADDRINUSE:
                "; another program (perhaps another observatoryd) listens on \(address): stop it, or choose "
                    + "another port with --port, OBSERVATORY_PORT or the file's port (0 picks a free one)"
            case EADDRNOTAVAIL, 0:
                "; \(configuration.host) is not an address of this machine: listen on 127.0.0.1, 0.0.0.0 "
                    + "or one of its own addresses (--host, OBSERVATORY_HOST or the file's host)"
            case EACCES:
                "; ports below 1024 need privileges: choose a port from 1024 up (--port, OBSERVATORY_PORT)"
            default:
                ""
            }
        return "cannot start: \(socketError)\(hint)"
    }

    private static func logFileLimit(_ outcome: FileDescriptorLimit.Outcome, logger: Logger) {
        if let failure = outcome.failure {
            logger.warning(
                "cannot raise the open-file limit above \(outcome.before) (errno \(failure)); "
                    + "connections beyond it will be refused")
        } else if outcome.after < 10_240 {
            logger.warning("the open-file limit is \(outcome.after): at most that many connections")
        } else {
            logger.debug("open-file limit: \(outcome.after)")
        }
    }
}
