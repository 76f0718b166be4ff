import ObservatoryHTTP

/// Holds a new connection's first bytes until they tell HTTP from the line
/// protocol (`HTTPRequestLine.classify`, at most 16 KiB), then hands them over.
struct ProtocolSniffer {
    /// What the connection speaks, once known.
    enum Decision: Equatable {
        /// Not known yet: more bytes are needed.
        case undecided
        /// HTTP/1.1, starting with these bytes.
        case http([UInt8])
        /// The line protocol, starting with these bytes.
        case lineProtocol([UInt8])
    }

    private var bytes: [UInt8] = []

    /// The bytes held while undecided.
    var bufferedByteCount: Int { bytes.count }

    /// Adds received bytes and says whether the protocol is known now.
    mutating func append(_ received: UnsafeRawBufferPointer) -> Decision {
        bytes.append(contentsOf: received)
        switch HTTPRequestLine.classify(bytes) {
        case .needMoreBytes: return .undecided
        case .http: return .http(take())
        case .lineProtocol: return .lineProtocol(take())
        }
    }

    /// The client ended its input before the protocol was known: the line protocol,
    /// whose splitter answers whatever partial frame there is.
    mutating func inputEnded() -> Decision {
        .lineProtocol(take())
    }

    private mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
