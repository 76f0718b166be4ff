#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value lives:
/// bound but never listened on, so no other test can take it meanwhile (as it
/// could once a listener closed).
public final class RefusingPort: Sendable {
    /// The refusing port.
    public let port: Int
    private let descriptor: Int32

    /// The port could not be bound.
    public struct SetupFailure: Error, CustomStringConvertible {
        /// The `errno` of the failure.
        public let errorNumber: Int32
        /// What failed, with errno.
        public var description: String { "cannot bind a loopback port: errno \(errorNumber)" }
    }

    /// Binds a free loopback port without listening on it.
    public init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw SetupFailure(errorNumber: errno) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
