/// The web face of a connection whose client speaks HTTP: its
/// `HTTPConnectionMachine`, kept in an allocation of its own.
///
/// The machine holds an HTTP request's decoder and head and a WebSocket's state,
/// hundreds of bytes that a connection speaking the line protocol (nearly all of
/// them) would otherwise carry inline for as long as it is open. Confined to the
/// connection's loop, like the connection's other variables.
final class WebFace {
    /// The web face's machine, changed in place.
    @exclusivity(unchecked) var machine: HTTPConnectionMachine

    /// Wraps `machine`.
    init(_ machine: HTTPConnectionMachine) {
        self.machine = machine
    }
}
