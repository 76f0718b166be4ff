/// What differs between the systems the socket layer runs on, and nothing else.
///
/// The socket layer is the same code on Linux and on every Apple platform; where
/// Glibc and Darwin differ (the type of `SOCK_STREAM`, how a write to a closed
/// connection is kept from raising `SIGPIPE`, the keep-alive option's name,
/// `POLLRDHUP`, the names of calls that a type's own methods shadow), the code asks
/// this namespace, which each platform fills in one file of its own:
/// `Platform+Glibc.swift` and `Platform+Darwin.swift`. So a Linux build runs every
/// line an Apple build runs, except the lines of its platform file, and CI's
/// portability check (`.ci/portability.sh`) allows Linux-only names only there.
enum Platform {}
