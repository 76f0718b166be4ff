import ObservatoryWire

/// The echo filter: which changes of a mirror's `Var` are the program writing.
extension ClientMachine {
    /// Who made a change of a mirror's `Var`, as far as the mirror is concerned.
    enum ChangeOrigin: Equatable {
        /// The mirror itself, bringing the `Var` in line with the server: a remote
        /// change, a reset, or the client's own resync. Sending it back would echo.
        case server
        /// The program (`value =`, `<-`, or `set(_:as:)` with an author of its own): a write to send.
        case program
    }

    /// Whether the change of a mirror's `Var` authored by `author` is to be sent.
    ///
    /// The mirror authors every change it makes with a remote ``Author``, a
    /// ``Reset`` or the client (`client`, for a key a resync found missing);
    /// any other author is the program. So a mirror never sends the server's
    /// own values back: no echo.
    static func origin(ofChangeBy author: AnyObject, client: AnyObject?) -> ChangeOrigin {
        if author is Author || author is Reset || author === client { return .server }
        return .program
    }
}
