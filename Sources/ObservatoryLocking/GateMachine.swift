/// The rules of a gate, as a plain value: a counter that only grows (a
/// revision, or how many times a connection's state changed), the values it
/// will never reach (lost, with why), and who waits for which value, each
/// until an optional deadline.
///
/// The project's one way to wait "until a counter reaches a value, or until a
/// deadline, whichever comes first": the server's revision gate, a cluster
/// node's write replies and the client's `waitUntilSynchronized` all wait on
/// one. Its inputs are ``wait(for:until:_:)``, ``advance(to:)``,
/// ``lose(_:because:)``, ``expire(at:)`` and ``close()``; each returns the
/// waiters to wake, each told how its wait ended (``GateEnding``), which the
/// caller wakes after releasing the lock that guards the machine. The machine
/// runs nothing and reads no clock: its owner asks ``nextDeadline`` when to
/// call ``expire(at:)``.
///
/// Rules:
/// - Every waiter is woken exactly once: the input that wakes it removes it.
/// - A wait for a value already reached or lost, or made after the gate
///   closed, is woken at once (returned by the wait).
/// - Waiters wake in the order of their values, and for one value in the order
///   they came; the waiters one input wakes keep that order.
///
/// `Waiter` is what the owner wakes (a closure, a continuation); `Loss` is what
/// a lost value carries (`Never` for a gate that loses nothing).
package struct GateMachine<Waiter, Loss> {
    /// A waiter to wake, with the value it waited for and how its wait ended.
    package struct Woken {
        /// The value it waited for.
        package let target: Int64
        /// What the owner wakes.
        package let waiter: Waiter
        /// How its wait ended.
        package let ending: GateEnding<Loss>
    }

    /// Someone waiting for `target`, until `deadline` if it has one.
    private struct Entry {
        let target: Int64
        let deadline: ContinuousClock.Instant?
        let waiter: Waiter

        func woken(_ ending: GateEnding<Loss>) -> Woken {
            Woken(target: target, waiter: waiter, ending: ending)
        }
    }

    /// How far the counter has come: waits for values up to it are answered.
    package private(set) var reached: Int64
    /// Whether the gate closed: nothing waits any more.
    package private(set) var isClosed = false
    /// The lost values, in the order they were lost, with what each loss carries.
    package private(set) var losses: [(values: ClosedRange<Int64>, loss: Loss)] = []
    /// The waiters, sorted by value; equal values in arrival order.
    private var waiting: [Entry] = []
    /// How many waiters have a deadline: ``nextDeadline`` looks no further when none has.
    private var deadlineCount = 0

    /// A gate whose counter stands at `value` (`.max`: every wait is answered at once).
    package init(reached value: Int64) {
        reached = value
    }

    // MARK: Questions

    /// How many wait.
    package var waiterCount: Int { waiting.count }

    /// The earliest deadline of a waiter, if any has one: when the owner should
    /// next call ``expire(at:)``.
    package var nextDeadline: ContinuousClock.Instant? {
        guard deadlineCount > 0 else { return nil }
        return waiting.lazy.compactMap(\.deadline).min()
    }

    /// What the loss of `value` carries, if it is lost.
    package func loss(of value: Int64) -> Loss? {
        losses.first { $0.values.contains(value) }?.loss
    }

    // MARK: Inputs

    /// Someone waits for `value`, until `deadline` if one is given. Returns it,
    /// to wake now, if the value is lost or reached or the gate closed; else
    /// keeps it and returns nothing.
    package mutating func wait(
        for value: Int64, until deadline: ContinuousClock.Instant? = nil, _ waiter: Waiter
    ) -> [Woken] {
        let entry = Entry(target: value, deadline: deadline, waiter: waiter)
        if let loss = loss(of: value) { return [entry.woken(.lost(loss))] }
        if value <= reached { return [entry.woken(.reached)] }
        if isClosed { return [entry.woken(.closed)] }
        waiting.insert(entry, at: firstIndex(after: value))
        if deadline != nil { deadlineCount += 1 }
        return []
    }

    /// The counter reached `value`: returns the waiters for values up to it,
    /// lowest first. A value behind ``reached`` changes nothing.
    package mutating func advance(to value: Int64) -> [Woken] {
        guard value > reached else { return [] }
        reached = value
        return take(0..<firstIndex(after: value), .reached)
    }

    /// `values` will never be reached, because of `loss`. Returns their waiters, lowest value first.
    package mutating func lose(_ values: ClosedRange<Int64>, because loss: Loss) -> [Woken] {
        losses.append((values, loss))
        let start = firstIndex(after: values.lowerBound - 1)
        return take(start..<firstIndex(after: values.upperBound), .lost(loss))
    }

    /// The time is `now`: returns the waiters whose deadline is not after it,
    /// told they timed out, lowest value first.
    package mutating func expire(at now: ContinuousClock.Instant) -> [Woken] {
        guard deadlineCount > 0 else { return [] }
        var expired: [Woken] = []
        waiting.removeAll { entry in
            guard let deadline = entry.deadline, deadline <= now else { return false }
            expired.append(entry.woken(.timedOut))
            return true
        }
        deadlineCount -= expired.count
        return expired
    }

    /// The gate closes: returns every waiter; later waits for values not
    /// reached are answered at once.
    package mutating func close() -> [Woken] {
        isClosed = true
        return take(0..<waiting.count, .closed)
    }

    // MARK: Helpers

    /// Removes the waiters in `range` and returns them, told `ending`.
    private mutating func take(_ range: Range<Int>, _ ending: GateEnding<Loss>) -> [Woken] {
        guard !range.isEmpty else { return [] }
        let taken = waiting[range]
        waiting.removeSubrange(range)
        deadlineCount -= taken.count(where: { $0.deadline != nil })
        return taken.map { $0.woken(ending) }
    }

    /// The index of the first waiter for a value above `value`.
    private func firstIndex(after value: Int64) -> Int {
        var low = 0
        var high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle].target <= value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension GateMachine.Woken: Sendable where Waiter: Sendable, Loss: Sendable {}
