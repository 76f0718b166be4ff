// swift-tools-version:6.0
// Observatory: observe shared state across a network.
// No package dependencies by design: Foundation, Dispatch, Synchronization and
// the toolchain's test libraries only.
import PackageDescription

let package = Package(
    name: "Observatory",
    // `Mutex` (Synchronization) needs these versions on Apple platforms. The core,
    // the protocol and the client are portable by construction (.ci/portability.sh);
    // the server, the daemon, etcd and epoll are Linux, where everything is built.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Observatory", targets: ["Observatory"]),
        .library(name: "ObservatoryWire", targets: ["ObservatoryWire"]),
        .library(name: "ObservatoryServer", targets: ["ObservatoryServer"]),
        .library(name: "ObservatoryClient", targets: ["ObservatoryClient"]),
        .library(name: "ObservatorySockets", targets: ["ObservatorySockets"]),
        .library(name: "ObservatoryLogging", targets: ["ObservatoryLogging"]),
        .library(name: "ObservatoryHTTP", targets: ["ObservatoryHTTP"]),
        .library(name: "ObservatoryEtcd", targets: ["ObservatoryEtcd"]),
        .executable(name: "observatoryd", targets: ["observatoryd"]),
        .executable(name: "observatory", targets: ["observatory"]),
        .executable(name: "observatory-bench", targets: ["observatory-bench"]),
    ],
    targets: [
        // The lock box every module shares (`Locked`); a leaf: it imports nothing of ours.
        .target(name: "ObservatoryLocking"),
        // The core observer library: Messenger, Var, transforms, authors, ...
        .target(name: "Observatory", dependencies: ["ObservatoryLocking"]),
        // JSON: the parser, the validator, the writer, values as trees or as bytes, and
        // Codable over them. A leaf: the protocol and the etcd client share it.
        .target(name: "ObservatoryJSON"),
        // The wire protocol of docs/protocol.md as pure values: no sockets.
        .target(name: "ObservatoryWire", dependencies: ["ObservatoryJSON"]),
        // The one logger of the server, the daemon, the client and the CLI: a level and a sink.
        .target(name: "ObservatoryLogging", dependencies: ["ObservatoryLocking"]),
        // HTTP/1.1 messages, chunked bodies, WebSocket frames and SHA-1 as pure
        // values: for the daemon's web face and the etcd client; imports none of ours.
        .target(name: "ObservatoryHTTP"),
        // Linux's <sys/epoll.h>, <sys/eventfd.h>, <sys/timerfd.h> and <malloc.h>,
        // which the toolchain's Glibc module leaves out; headers only.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // The one socket layer: TCP sockets, addresses, errors, a poll(2) waiter and the
        // file limit, for the server, the client, the tests and the benchmark. Portable:
        // Linux and Apple platforms, each one's differences in one file (Platform/).
        .target(name: "ObservatorySockets"),
        // The server side's epoll set (`Poller`): Linux only, kept out of the client's closure.
        .target(name: "ObservatoryEpoll", dependencies: ["CEpoll", "ObservatorySockets"]),
        // The store, sessions, limits, storage and the event loops.
        .target(
            name: "ObservatoryServer",
            dependencies: [
                "ObservatoryLogging", "Observatory", "ObservatoryWire", "ObservatorySockets", "ObservatoryEpoll",
                "ObservatoryEtcd", "ObservatoryHTTP", "CEpoll",
            ]),
        // Connection, mirrors of remote values as local Vars, reconnect.
        .target(
            name: "ObservatoryClient",
            dependencies: ["ObservatoryLogging", "Observatory", "ObservatoryWire", "ObservatorySockets"]),
        // The daemon's logic: its command line and environment, signals, the file limit.
        // Not a product: library users embed `Server` and have no use for it.
        .target(
            name: "ObservatoryDaemon", dependencies: ["ObservatoryLogging", "ObservatoryServer", "ObservatorySockets"]),
        // The CLI's logic: arguments, commands, output and exit codes. Not a product.
        .target(name: "ObservatoryCommandLine", dependencies: ["ObservatoryClient", "ObservatoryWire", "Observatory"]),
        // The etcd v3 client over etcd's JSON gateway: KV, transactions, leases,
        // watches. Nothing Observatory-specific; cluster mode builds on it.
        .target(
            name: "ObservatoryEtcd",
            dependencies: ["ObservatoryLocking", "ObservatoryHTTP", "ObservatorySockets", "ObservatoryJSON"]),
        .executableTarget(name: "observatoryd", dependencies: ["ObservatoryDaemon"]),
        .executableTarget(name: "observatory", dependencies: ["ObservatoryCommandLine"]),
        // The README's walkthrough: mirrors `sky.color` and prints its changes.
        .executableTarget(
            name: "SkyWatcher",
            dependencies: ["ObservatoryClient", "Observatory"],
            path: "Examples/SkyWatcher"
        ),
        // A client process with an offline store, for the client's process
        // tests: shows a kept value, writes, and waits to be killed.
        .executableTarget(
            name: "OfflineWriter", dependencies: ["ObservatoryClient", "Observatory"], path: "Tests/OfflineWriter"),
        // Release benchmarks; a separate module, so it calls the library as users do.
        .executableTarget(
            name: "observatory-bench",
            dependencies: [
                "Observatory", "ObservatoryWire", "ObservatoryServer", "ObservatorySockets", "ObservatoryEpoll",
                "ObservatoryHTTP",
            ]
        ),
        .testTarget(name: "ObservatoryTests", dependencies: ["Observatory"]),
        .testTarget(
            name: "ObservatoryWireTests",
            dependencies: ["ObservatoryJSON", "ObservatoryWire", "ObservatoryTestSupport"]),
        .testTarget(name: "ObservatoryLoggingTests", dependencies: ["ObservatoryLogging", "Observatory"]),
        .testTarget(name: "ObservatoryHTTPTests", dependencies: ["ObservatoryHTTP"]),
        // The portable socket layer on its own: the poll(2) waiter and the platform's socket options.
        .testTarget(name: "ObservatorySocketsTests", dependencies: ["ObservatorySockets"]),
        .testTarget(
            name: "ObservatoryServerTests",
            dependencies: [
                "ObservatoryServer", "ObservatoryWire", "Observatory", "ObservatorySockets", "ObservatoryEpoll",
                "ObservatoryLogging", "ObservatoryTestSupport", "ObservatoryHTTP",
            ]),
        // Black-box checks of the server against docs/protocol.md, over raw TCP with
        // Foundation's JSON, as a client in another language would see it.
        .testTarget(
            name: "ObservatoryConformanceTests",
            dependencies: ["ObservatoryServer", "Observatory", "ObservatorySockets", "ObservatoryTestSupport"]),
        .testTarget(
            name: "ObservatoryClientTests",
            dependencies: [
                "ObservatoryClient", "ObservatoryServer", "ObservatoryWire", "Observatory", "ObservatorySockets",
                "ObservatoryTestSupport",
            ]
        ),
        // The one test kit of the server, daemon, client, CLI and etcd tests: a server on a free port, a
        // raw line client, temporary directories, waiting for a condition, a recorder, real etcd members.
        .target(
            name: "ObservatoryTestSupport",
            dependencies: [
                "ObservatoryClient", "ObservatoryServer", "ObservatoryWire", "Observatory", "ObservatorySockets",
            ],
            path: "Tests/ObservatoryTestSupport"),
        // The daemon's command line, environment and exit statuses, and the spawned `observatoryd` process.
        .testTarget(
            name: "ObservatoryDaemonTests",
            dependencies: [
                "ObservatoryDaemon", "ObservatoryServer", "ObservatoryLogging", "ObservatoryWire", "ObservatorySockets",
                "ObservatoryTestSupport",
            ]),
        // The CLI's parsing and formatting, every command against an in-process server, and the
        // built `observatory` binary run as a process.
        .testTarget(
            name: "ObservatoryCommandLineTests",
            dependencies: [
                "ObservatoryCommandLine", "ObservatoryClient", "ObservatoryServer", "ObservatoryWire", "Observatory",
                "ObservatoryTestSupport",
            ]
        ),
        // The etcd client's pure logic, and its requests against real etcd members
        // (skipped when etcd is not installed: .ci/install-etcd.sh installs it).
        .testTarget(
            name: "ObservatoryEtcdTests",
            dependencies: ["ObservatoryEtcd", "ObservatorySockets", "ObservatoryTestSupport", "Observatory"]),
    ]
)
