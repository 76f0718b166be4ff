import ObservatoryLogging
import ObservatoryWire

// The types a client program meets that other modules of this package declare, named here so that
// `import ObservatoryClient` (with the core, `Observatory`) is all a client program imports. Aliases,
// not `@_exported import`: the wire module's parser, framing and server-side types stay out of sight.
//
// Two names stay out because Apple's own modules use them and a file importing both would find them
// ambiguous: `Operation` (Foundation's), the raw request of `send(_:)`, which is inferred from
// `.get(key:)` and the like; and `Logger` (os's), which `configuration.logger = .init(level:sink:)`
// need not name. A tool that names them imports `ObservatoryWire` or `ObservatoryLogging`.
//
// A file that imports `ObservatoryWire` as well sees each of these names twice. Declarations take the
// two for one type, but some expressions do not (`[Author]()`, `(JSONValue).self`, which a parameterized
// `@Test` writes for its parameters' types): such a file imports only one of the two modules.

// MARK: Authors, errors and values

/// Who made a change: the author name and the session it was made in. The author of a mirror's
/// remote `Update`s and of every ``RemoteChange`` and ``RemoteEntry``.
public typealias Author = ObservatoryWire.Author

/// The server's error in a failure reply: a code and a message; ``ClientError/serverError`` holds it.
public typealias WireError = ObservatoryWire.WireError

/// The code of a server error, for example `.conflict` or `.notFound`: compare
/// `error.serverError?.code` with it.
public typealias ErrorCode = ObservatoryWire.ErrorCode

/// Any JSON value: what a key holds on the server, as ``RemoteEntry`` and ``RemoteChange`` carry it.
public typealias JSONValue = ObservatoryWire.JSONValue

/// A JSON object with its members in order: the raw reply that ``ObservatoryClient/send(_:)`` returns.
public typealias JSONObject = ObservatoryWire.JSONObject

// MARK: Requests and their answers

/// One key or every key under a prefix, as ``ObservatoryClient/changes(of:slow:)`` observes it.
public typealias Target = ObservatoryWire.Target

/// What the server does when this client falls behind an observation's changes: coalesce them, or
/// close the connection so the client resumes without missing one.
public typealias SlowPolicy = ObservatoryWire.SlowPolicy

/// Where an observation resumes: a revision, and the epoch it belongs to.
public typealias ResumePoint = ObservatoryWire.ResumePoint

/// A key and its version, as ``ObservatoryClient/list(prefix:)`` returns them.
public typealias KeyVersion = ObservatoryWire.KeyVersion

/// A change as the server sent it, kept in ``RemoteChange/event`` for programs that print raw events.
public typealias Event = ObservatoryWire.Event

/// What ``ObservatoryClient/history(_:as:)`` asks for: a key or prefix, filters, range, limit and order.
public typealias HistoryQuery = ObservatoryWire.HistoryQuery

/// One change of a `history` reply as the server sent it: its event and `at`.
public typealias HistoryChange = ObservatoryWire.HistoryChange
/// One operation of a batch as the protocol has it; ``BatchStep/init(_:)`` sends one.
public typealias BatchOperation = ObservatoryWire.BatchOperation<JSONValue>

/// The result of one step of a batch, in ``BatchOutcome/results``.
public typealias BatchResult = ObservatoryWire.BatchResult

// MARK: Logging

/// How much the client's logger says: `debug`, `info`, `warning` or `error`.
public typealias LogLevel = ObservatoryLogging.LogLevel

/// One line the client's logger writes: its level, message and time.
public typealias LogRecord = ObservatoryLogging.LogRecord

/// Where the client's log records go; implement it to send them elsewhere.
public typealias LogSink = ObservatoryLogging.LogSink

/// A ``LogSink`` that writes each record to standard error as one line.
public typealias StandardErrorLogSink = ObservatoryLogging.StandardErrorLogSink
