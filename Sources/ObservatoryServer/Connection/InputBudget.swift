import Observatory

/// The bytes all connections hold in unfinished frames, against one server-wide
/// cap (`limits.maxBufferedInputBytes`), so that many clients each sending a
/// large line slowly cannot exhaust memory together.
///
/// Connections report what they hold after every read. While the total is over
/// the cap, a connection holding a large partial frame (at least
/// `largeFrameBytes`, or at least the average share) stops being read; the others,
/// with small requests, go on, but each only up to `largeFrameBytes` held: past
/// that, a frame splitter's buffer grows to a whole frame's (1 MiB and more) in one
/// read, before the report that would pause it. One holder is always left
/// reading, so that large frames keep completing and freeing the budget even when
/// all of them are large. Once the total is back under the cap, the paused
/// connections are resumed.
///
/// ## Locking
/// One `Locked` box; resume actions run after it is released.
final class InputBudget: Sendable {
    private struct State {
        var held: [ObjectIdentifier: Int] = [:]
        var total = 0
        var paused: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    /// What a connection may read after it reported what it holds.
    enum Reading: Equatable, Sendable {
        /// As much as a read takes.
        case freely
        /// At most this many bytes before it reports again.
        case atMost(Int)
        /// Nothing until the budget resumes it.
        case paused
    }

    /// The cap on the total, in bytes.
    let limit: Int
    /// A partial frame this large stops its connection while the total is over the cap.
    static let largeFrameBytes = 65_536
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// A budget for a server whose unfinished input may take `maxBytes` of memory
    /// in all: it pauses readers at 15/16 of it, leaving the rest for what is read
    /// before a connection is paused (one read of the loop's buffer each) and for
    /// the allocator's slack while buffers grow.
    convenience init(maxBytes: Int) {
        self.init(limit: maxBytes - maxBytes / 16)
    }

    /// The bytes held by all connections.
    var total: Int {
        state.withLock { $0.total }
    }

    /// Records that `connection` holds `bytes`; returns what it may read next. When
    /// that is `.paused`, `resume` runs once the total is back under the cap.
    func record(
        _ connection: ObjectIdentifier, holding bytes: Int, resume: @escaping @Sendable () -> Void
    ) -> Reading {
        let (reading, resumed) = state.withLock { state -> (Reading, [@Sendable () -> Void]) in
            update(connection, to: bytes, in: &state)
            guard state.total > limit else { return (.freely, takeResumes(&state)) }
            guard bytes > 0 else { return (.freely, keepOneReading(&state)) }
            let holders = state.held.count
            guard state.paused.count + 1 < holders else { return (.freely, []) }
            guard bytes >= Self.largeFrameBytes || bytes * holders >= state.total else {
                return (.atMost(Self.largeFrameBytes - bytes), [])
            }
            state.paused[connection] = resume
            return (.paused, [])
        }
        for action in resumed { action() }
        return reading
    }

    /// Forgets a closed connection (its bytes are freed).
    func remove(_ connection: ObjectIdentifier) {
        let resumed = state.withLock { state -> [@Sendable () -> Void] in
            update(connection, to: 0, in: &state)
            state.paused[connection] = nil
            return state.total > limit ? keepOneReading(&state) : takeResumes(&state)
        }
        for action in resumed { action() }
    }

    private func update(_ connection: ObjectIdentifier, to bytes: Int, in state: inout State) {
        state.total += bytes - (state.held[connection] ?? 0)
        state.held[connection] = bytes > 0 ? bytes : nil
    }

    /// When every holder is paused, resumes one, so that frames keep completing.
    private func keepOneReading(_ state: inout State) -> [@Sendable () -> Void] {
        guard !state.held.isEmpty, state.paused.count >= state.held.count,
            let next = state.paused.keys.max(by: { (state.held[$0] ?? 0) < (state.held[$1] ?? 0) }),
            let resume = state.paused.removeValue(forKey: next)
        else { return [] }
        return [resume]
    }

    private func takeResumes(_ state: inout State) -> [@Sendable () -> Void] {
        guard !state.paused.isEmpty else { return [] }
        let actions = Array(state.paused.values)
        state.paused = [:]
        return actions
    }
}
