import Foundation
import ObservatorySockets
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Parses one line of server output.
func json(_ line: some Collection<UInt8>) throws -> JSONValue {
    try JSONValue.parse(line)
}

/// Parses a JSON text written in a test.
func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}

extension ConnectionOutput {
    /// Everything queued so far, as parsed lines (marks it all sent).
    func drainMessages() throws -> [JSONValue] {
        try drainLines().map { try json($0) }
    }

    /// Everything queued so far, as lines exactly as they would be sent, without
    /// their LFs (marks it all sent).
    func drainLines() -> [ArraySlice<UInt8>] {
        withQueue { $0.drainLines() }
    }
}

/// Builds a configuration for tests: loopback, free port, short grace, in memory
/// (fsync `none`; storage tests give their own data directory).
func testConfiguration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.fsync = .none
    configuration.shutdownGraceMilliseconds = 500
    configuration.ioThreads = 2
    adjust(&configuration)
    return configuration
}

/// The most bytes the kernel lets one TCP sender buffer (the last field of
/// `tcp_wmem`; 4 MiB if unreadable): a flood meant to outgrow every buffer in front
/// of a client that does not read must be larger than this on any machine.
func kernelSendBufferCeiling() -> Int {
    let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)
    let last = text?.split(whereSeparator: \.isWhitespace).last
    return last.flatMap { Int($0) } ?? 4 << 20
}

extension OutboundQueue {
    /// Sends everything queued, as a socket that takes every byte would, and parses the frames.
    mutating func drainMessages() throws -> [JSONValue] {
        try drainLines().map { try json($0) }
    }

    /// Sends everything queued, as `drainMessages()` does, and returns the lines as sent.
    mutating func drainLines() -> [ArraySlice<UInt8>] {
        var bytes: [UInt8] = []
        while true {
            let chunk = nextBytes()
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
            markSent(chunk.count)
        }
        return bytes.split(separator: UInt8(ascii: "\n"))
    }
}

extension TestServer {
    /// A server with `testConfiguration(adjust)`.
    convenience init(_ adjust: (inout ServerConfiguration) -> Void) throws {
        try self.init(configuration: testConfiguration(adjust))
    }

    /// A raw line client; a small `receiveBufferBytes` makes a client that stops reading fill up quickly.
    func client(receiveBufferBytes: Int32? = nil) throws -> LineClient {
        try LineClient(port: port, receiveBufferBytes: receiveBufferBytes)
    }
}

/// Accepts the connection `client` made to `listener`, waiting up to a second for
/// it; closes `client` if none comes.
func acceptConnection(from listener: ListeningSocket, closingOnFailure client: StreamSocket) throws -> Int32 {
    var accepted: Int32?
    do {
        try waitUntil("a connection to accept", timeout: .seconds(1)) {
            accepted = try listener.accept()
            return accepted != nil
        }
    } catch {
        client.close()
        throw error
    }
    return try #require(accepted)
}
