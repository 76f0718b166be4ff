#if canImport(Darwin)
    import Darwin

    /// Apple platforms (Darwin): the socket layer's platform differences.
    extension Platform {
        /// `SOCK_STREAM`, which Darwin imports as an `Int32`.
        static let streamSocketType = SOCK_STREAM

        /// Flags every `send` adds: none, since Darwin has no `MSG_NOSIGNAL`;
        /// `suppressBrokenPipeSignal(on:)` sets `SO_NOSIGPIPE` on every socket instead.
        static let sendFlags: Int32 = 0

        /// Darwin's `poll` has no `POLLRDHUP`: only `POLLHUP` and `POLLERR` tell of a
        /// peer that left, once the connection is closed both ways or failed.
        static let peerHangUpEvents: Int16 = 0

        /// The option that sets how long a connection stays silent before the first
        /// keep-alive probe (Darwin's name for Linux's `TCP_KEEPIDLE`).
        static let keepAliveIdleOption = TCP_KEEPALIVE

        /// `RLIMIT_NOFILE` as `getrlimit` takes it.
        static let openFilesResource = RLIMIT_NOFILE

        /// A new TCP socket for `family`, non-blocking, closed on exec and without
        /// `SIGPIPE`, or -1 with `errno` set.
        ///
        /// Darwin's `socket` takes no flags: `fcntl` sets them right after.
        static func makeStreamSocket(family: Int32) -> Int32 {
            let descriptor = socket(family, streamSocketType, 0)
            guard descriptor >= 0 else { return descriptor }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            suppressBrokenPipeSignal(on: descriptor)
            return descriptor
        }

        /// Keeps writes to `descriptor` from raising `SIGPIPE`: `SO_NOSIGPIPE`, so
        /// that a peer that went away is an `EPIPE` error.
        static func suppressBrokenPipeSignal(on descriptor: Int32) {
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        /// `connect(2)`.
        static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
            Darwin.connect(descriptor, address, length)
        }

        /// `accept(2)`, without the peer's address.
        static func accept(_ descriptor: Int32) -> Int32 {
            Darwin.accept(descriptor, nil, nil)
        }

        /// `send(2)`.
        static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
            Darwin.send(descriptor, bytes, count, flags)
        }

        /// `shutdown(2)`.
        static func shutdown(_ descriptor: Int32, _ how: Int32) -> Int32 {
            Darwin.shutdown(descriptor, how)
        }

        /// `close(2)`.
        @discardableResult
        static func close(_ descriptor: Int32) -> Int32 {
            Darwin.close(descriptor)
        }
    }
#endif
