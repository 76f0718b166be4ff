import Observatory

/// The bytes all connections hold in unfinished frames, against one server-wide
/// cap (`limits.maxBufferedInputBytes`), so that many clients each sending a
/// large line slowly cannot exhaust memory together.
///
/// Connections report what they hold after every read. While the total is over
/// the cap, a connection holding a large partial frame (at least
/// `largeFrameBytes`, or at least the average share) stops being read; the others,
/// with small requests, go on. One holder is always left reading, so that large
/// frames keep completing and freeing the budget even when all of them are
/// large. Once the total is back under the cap, the paused connections are
/// resumed.
///
/// ## Locking
/// One `Locked` box; resume actions run after it is released.
final class InputBudget: Sendable {
    private struct State {
        var held: [ObjectIdentifier: Int] = [:]
        var total = 0
        var paused: [ObjectIdentifier: @Sendable () -> Void] = [:]
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

    /// Records that `connection` holds `bytes`; returns whether it must stop
    /// reading. Then `resume` runs once the total is back under the cap.
    func record(
        _ connection: ObjectIdentifier, holding bytes: Int, resume: @escaping @Sendable () -> Void
    ) -> Bool {
        let (mustPause, resumed) = state.withLock { state -> (Bool, [@Sendable () -> Void]) in
            update(connection, to: bytes, in: &state)
            guard state.total > limit else { return (false, takeResumes(&state)) }
            guard bytes > 0 else { return (false, keepOneReading(&state)) }
            let holders = state.held.count
            guard bytes >= Self.largeFrameBytes || (bytes > 0 && bytes * holders >= state.total),
                state.paused.count + 1 < holders
            else { return (false, []) }
            state.paused[connection] = resume
            return (true, [])
        }
        for action in resumed { action() }
        return mustPause
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
