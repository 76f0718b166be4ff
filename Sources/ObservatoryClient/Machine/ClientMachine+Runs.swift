import ObservatoryWire

/// Runs of events: the events of one revision are applied together (``EventRun``).
extension ClientMachine {
    /// `event` arrived on `link`: returns the events to apply now, in order
    /// (the run it ended, if any). None for an old link.
    mutating func eventArrived(_ event: Event, on link: Link) -> [Event] {
        guard self.link === link else { return [] }
        return run.add(event)
    }

    /// The socket of `link` has nothing more to read for now: when the bytes read
    /// ended at a frame's end (`midFrame` false), the waiting run is complete;
    /// returns it. When they ended inside a frame, the run may go on in that
    /// frame: it waits.
    mutating func readEnded(on link: Link, midFrame: Bool) -> [Event] {
        guard self.link === link, !midFrame else { return [] }
        return run.take()
    }

    /// A frame that is not an event (a reply) arrived on `link`, or the link is
    /// about to end: the waiting run is complete; returns it, to apply first.
    mutating func runInterrupted(on link: Link) -> [Event] {
        guard self.link === link else { return [] }
        return run.take()
    }
}
