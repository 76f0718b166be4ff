#if canImport(Glibc)
    import Glibc

    /// Linux (Glibc): the socket layer's platform differences.
    extension Platform {
        /// `SOCK_STREAM`, which Glibc imports as an enum case.
        static let streamSocketType = Int32(SOCK_STREAM.rawValue)

        /// Flags every `send` adds: `MSG_NOSIGNAL`, so that a peer that went away
        /// is an `EPIPE` error and never a `SIGPIPE` (Linux has no socket option for it).
        static let sendFlags = Int32(MSG_NOSIGNAL)

        /// `POLLRDHUP` (not exported by the toolchain's Glibc module): the peer shut
        /// down its sending side, reported even while unread bytes wait.
        static let peerHangUpEvents: Int16 = 0x2000

        /// The option that sets how long a connection stays silent before the first keep-alive probe.
        static let keepAliveIdleOption = TCP_KEEPIDLE

        /// `RLIMIT_NOFILE` as `getrlimit` takes it (Glibc imports it as an enum case).
        static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

        /// A new TCP socket for `family`, non-blocking and closed on exec, or -1 with `errno` set.
        ///
        /// Both flags in the one call, so a process another thread spawns meanwhile never inherits it.
        static func makeStreamSocket(family: Int32) -> Int32 {
            socket(family, streamSocketType | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }

        /// Keeps writes to `descriptor` from raising `SIGPIPE`: nothing to do on Linux, where `sendFlags` does it.
        static func suppressBrokenPipeSignal(on descriptor: Int32) {}

        /// `connect(2)`.
        static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
            Glibc.connect(descriptor, address, length)
        }

        /// `accept(2)`, without the peer's address.
        static func accept(_ descriptor: Int32) -> Int32 {
            Glibc.accept(descriptor, nil, nil)
        }

        /// `send(2)`.
        static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
            Glibc.send(descriptor, bytes, count, flags)
        }

        /// `shutdown(2)`.
        static func shutdown(_ descriptor: Int32, _ how: Int32) -> Int32 {
            Glibc.shutdown(descriptor, how)
        }

        /// `close(2)`.
        @discardableResult
        static func close(_ descriptor: Int32) -> Int32 {
            Glibc.close(descriptor)
        }
    }
#endif
