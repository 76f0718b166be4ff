import ObservatoryWire

/// Why a request of the client failed, or what went wrong with a mirror.
///
/// A struct with a ``code`` rather than an enum, so that new kinds of failure
/// can be added without breaking a caller's exhaustive `switch` (as NIO's
/// errors and the protocol's `WireError` do). What a failure carries sits in
/// optional properties: the server's ``serverError`` (with its protocol code
/// and, for a `conflict`, ``currentVersion``; for a failed batch, the failing
/// step's ``operationIndex``), the ``key`` and ``version`` of a
/// value that does not decode, the ``connectionState`` or the ``disconnectReason``.
///
///     do {
///         try await client.set("door.locked", true, ifVersion: 12)
///     } catch let error where error.serverError?.code == .conflict {
///         print("someone else changed it; now at version \(error.currentVersion ?? 0)")
///     } catch let error where error.code == .notConnected {
///         print("offline: \(error.connectionState.map(String.init(describing:)) ?? "?")")
///     }
///
/// Errors without data compare equal to the ``closed`` and ``notAMirror`` constants,
/// so `catch ClientError.closed` and `#expect(throws: ClientError.notAMirror)` work.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case server, connectionFailed, notConnected, connectionLost, closed
            case undecodableValue, unencodableValue, badReply, timedOut, notAMirror
            case offlineStoreSetAside, offlineStoreFull, offlineStoreFailed
        }

        private let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The server answered with an error reply; see ``ClientError/serverError``.
        public static let server = Code(.server)
        /// The client could not open a connection.
        public static let connectionFailed = Code(.connectionFailed)
        /// The client has no synchronized connection right now; see ``ClientError/connectionState``.
        public static let notConnected = Code(.notConnected)
        /// The connection ended before the reply came; see ``ClientError/disconnectReason``.
        public static let connectionLost = Code(.connectionLost)
        /// The client was closed.
        public static let closed = Code(.closed)
        /// A remote value does not decode as the mirror's or caller's type.
        public static let undecodableValue = Code(.undecodableValue)
        /// A local value could not be encoded as JSON, so it was not sent.
        public static let unencodableValue = Code(.unencodableValue)
        /// The server sent a frame or reply the client cannot understand.
        public static let badReply = Code(.badReply)
        /// Waiting for the connection took longer than the caller allowed.
        public static let timedOut = Code(.timedOut)
        /// The `Var` given to a mirror operation is not a mirror of this client.
        public static let notAMirror = Code(.notAMirror)
        /// The offline store's file was damaged, torn or foreign, so it was renamed and the client started without it.
        public static let offlineStoreSetAside = Code(.offlineStoreSetAside)
        /// The offline store reached its cap, so some values or writes are not kept across a restart.
        public static let offlineStoreFull = Code(.offlineStoreFull)
        /// The offline store could not be written (a full disk, missing permissions).
        public static let offlineStoreFailed = Code(.offlineStoreFailed)

        /// The code's name, such as `connectionLost`.
        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A message a user can act on (the same as ``description``).
    public let message: String
    /// The server's error reply, for ``Code/server``.
    public private(set) var serverError: WireError?
    /// Where the connection stood, for ``Code/notConnected``.
    public private(set) var connectionState: ConnectionState?
    /// Why the connection ended, for ``Code/connectionLost``.
    public private(set) var disconnectReason: DisconnectReason?
    /// The key whose value could not be decoded or encoded.
    public private(set) var key: String?
    /// The version of the value that could not be decoded.
    public private(set) var version: Int64?
    /// The type the value did not decode as, such as `Double`.
    public private(set) var typeName: String?

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The key's current version carried by a `conflict` error (0 when the key is missing).
    public var currentVersion: Int64? { serverError?.currentVersion }

    /// For the failure of a batch: the position, in its steps, of the step that failed.
    public var operationIndex: Int? { serverError?.index }

    /// A message a user can act on.
    public var description: String { message }

    /// The server answered with an error reply (`not_found`, `conflict`, `forbidden`, ...).
    public static func server(_ error: WireError) -> ClientError {
        let version = error.currentVersion.map { " (current version \($0))" } ?? ""
        let index = error.index.map { " (batch operation \($0))" } ?? ""
        var result = ClientError(.server, "\(error.code): \(error.message)\(version)\(index)")
        result.serverError = error
        return result
    }

    /// The client could not open a connection; `detail` says why (with errno).
    public static func connectionFailed(_ detail: String) -> ClientError {
        ClientError(.connectionFailed, "cannot connect: \(detail)")
    }

    /// The client has no synchronized connection right now; `state` says where it stands.
    public static func notConnected(_ state: ConnectionState) -> ClientError {
        var result = ClientError(
            .notConnected, "not connected to the server (\(state)); the client reconnects by itself, try again later")
        result.connectionState = state
        return result
    }

    /// The connection ended before the reply came; the request may or may not have been applied.
    public static func connectionLost(_ reason: DisconnectReason) -> ClientError {
        var result = ClientError(
            .connectionLost,
            "the connection ended before the reply came (\(reason)); the request may or may not have been applied")
        result.disconnectReason = reason
        return result
    }

    /// The client was closed.
    public static let closed = ClientError(.closed, "the client is closed")

    /// A remote value does not decode as the mirror's or caller's type; the mirror kept its value.
    public static func undecodableValue(key: String, version: Int64, type: String, detail: String) -> ClientError {
        var result = ClientError(
            .undecodableValue,
            "the value of \(key) (version \(version)) is not a \(type): \(detail); the local value was kept")
        result.key = key
        result.version = version
        result.typeName = type
        return result
    }

    /// A local value could not be encoded as JSON, so it was not sent.
    public static func unencodableValue(key: String, detail: String) -> ClientError {
        var result = ClientError(
            .unencodableValue, "the value for \(key) cannot be encoded as JSON, so it was not sent: \(detail)")
        result.key = key
        return result
    }

    /// The server sent a frame or reply the client cannot understand.
    public static func badReply(_ detail: String) -> ClientError {
        ClientError(.badReply, "the server sent something unexpected: \(detail)")
    }

    /// Waiting for the connection took longer than the caller allowed.
    public static func timedOut(_ detail: String) -> ClientError {
        ClientError(.timedOut, "timed out: \(detail)")
    }

    /// The `Var` given to a mirror operation is not a mirror of this client.
    public static let notAMirror = ClientError(
        .notAMirror, "the variable is not a mirror of this client; get one from variable(_:default:)")

    /// The offline store's file at `path` could not be read as one (`detail`
    /// says why); it was renamed to `setAsideAs` and the client started without it.
    static func offlineStoreSetAside(path: String, setAsideAs: String, detail: String) -> ClientError {
        ClientError(
            .offlineStoreSetAside,
            "the offline store \(path) cannot be used: \(detail); it was moved to \(setAsideAs) and the client "
                + "starts without the values and writes it held")
    }

    /// The offline store reached its cap of `limit` bytes: `evicted` keys' values
    /// and `unkeptWrites` keys' writes are not kept across a restart.
    static func offlineStoreFull(limit: Int, evicted: [String], unkeptWrites: [String]) -> ClientError {
        var parts: [String] = []
        if !evicted.isEmpty { parts.append("the values of \(evicted.joined(separator: ", ")) are not kept") }
        if !unkeptWrites.isEmpty {
            parts.append(
                "the writes to \(unkeptWrites.joined(separator: ", ")) are still sent but would be lost in a restart")
        }
        return ClientError(
            .offlineStoreFull,
            "the offline store is full (\(limit) bytes): \(parts.joined(separator: "; ")); "
                + "raise ClientConfiguration.offlineStoreLimit or mirror fewer keys")
    }

    /// The offline store could not be written; `detail` says why.
    static func offlineStoreFailed(_ detail: String) -> ClientError {
        ClientError(
            .offlineStoreFailed,
            "the offline store cannot be written: \(detail); values and writes are not kept across a restart")
    }
}
