/// What a receiver needs from the observations of one observable, whatever
/// its message type: a way to end them when the receiver dies or stops.
@usableFromInline
protocol ObservationRegistry: AnyObject, Sendable {
    /// Ends every observation that a receiver holds in this registry, because the
    /// receiver dies or stops all its observations.
    func endObservations(of receiver: ReceiverLink)
}
