import ObservatoryWire

/// The acknowledgements of state kept in memory only: every change is
/// acknowledged as soon as it is made, and none is ever lost.
final class ImmediateAcknowledgements: Acknowledgements {
    let acknowledged = AcknowledgedRevision(.max)

    func isLost(_ revision: Int64) -> Bool { false }

    func lostChangeError() -> WireError {
        WireError(code: .internalError, message: "a change kept in memory cannot be lost")
    }

    func whenAcknowledged(_ revision: Int64, _ action: @escaping @Sendable () -> Void) {
        action()
    }
}
