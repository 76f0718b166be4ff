import ObservatoryEpoll

/// Something registered with an `EventLoop`: a connection or the listener.
protocol LoopHandler: AnyObject {
    /// The descriptor is ready; called on the loop's thread.
    func handle(_ readiness: Poller.Readiness)
    /// The loop is ending: release the descriptor.
    func loopStopped()
}

/// A handler whose output the loop writes at the end of a turn, one send per
/// socket however many replies and events were queued during it.
protocol FlushingLoopHandler: LoopHandler {
    /// Writes what is queued, as far as the socket allows; on the loop's thread.
    func flush()
    /// The loop's time has come again for a handler that asked with
    /// `EventLoop.resume(_:)`: it goes on with the input it held back; on the loop's thread.
    func resume()
}
