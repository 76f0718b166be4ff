/// The client's mirrors by key, and which of them wait for something: a first
/// `observe` (made while not in sync), or a resync to send their unsent write.
///
/// A plain value inside the client's machine; the mirrors themselves are
/// reference types with their own rules (``MirrorState``).
struct MirrorRegistry {
    /// Every mirror, by key; one key may have several (one per value type and flag).
    private(set) var byKey: [String: [any MirrorEndpoint]] = [:]
    /// Mirrors made while not in sync: observed once the client is.
    private var awaitingObserve: [any MirrorEndpoint] = []
    /// Mirrors with a local write to send after the next resync.
    private var withUnsentWrites: [ObjectIdentifier: any MirrorEndpoint] = [:]
    /// Mirrored keys whose `observe` was sent and not answered yet.
    private(set) var snapshotsInFlight = 0

    /// Whether every mirror has its snapshot or has resumed.
    var isSettled: Bool { awaitingObserve.isEmpty && snapshotsInFlight == 0 }

    /// Whether `key` has a mirror.
    func contains(_ key: String) -> Bool { byKey[key] != nil }

    /// The mirrors of `key`.
    func mirrors(of key: String) -> [any MirrorEndpoint] { byKey[key] ?? [] }

    /// Every mirror.
    var all: [any MirrorEndpoint] { byKey.values.flatMap { $0 } }

    /// The mirror of `key` of type `Found` that matches `isMatch`, if there is one.
    func first<Found>(_ type: Found.Type, key: String, where isMatch: (Found) -> Bool) -> Found? {
        byKey[key]?.lazy.compactMap { $0 as? Found }.first(where: isMatch)
    }

    /// The mirror of any key of type `Found` that matches `isMatch`.
    func first<Found>(_ type: Found.Type, where isMatch: (Found) -> Bool) -> Found? {
        byKey.values.lazy.flatMap { $0 }.compactMap { $0 as? Found }.first(where: isMatch)
    }

    /// Adds `mirror`; unless `observeNow`, it waits for the next resync to be observed.
    mutating func add(_ mirror: any MirrorEndpoint, observeNow: Bool) {
        byKey[mirror.key, default: []].append(mirror)
        if !observeNow { awaitingObserve.append(mirror) }
    }

    /// `mirror` has a write to send once the client is in sync.
    mutating func keepUnsentWrite(of mirror: any MirrorEndpoint) {
        withUnsentWrites[ObjectIdentifier(mirror)] = mirror
    }

    /// A resync begins: it observes every mirror, so none waits any more.
    mutating func resyncBegan() {
        awaitingObserve.removeAll()
    }

    /// The resync ended: hands out the mirrors with unsent writes, and those made
    /// during the resync (which it did not observe).
    mutating func resyncEnded() -> (unsent: [any MirrorEndpoint], awaiting: [any MirrorEndpoint]) {
        defer {
            withUnsentWrites.removeAll()
            awaitingObserve.removeAll()
        }
        return (Array(withUnsentWrites.values), awaitingObserve)
    }

    /// `count` mirrored keys were asked for their snapshot.
    mutating func snapshotsRequested(_ count: Int) {
        snapshotsInFlight += count
    }

    /// One mirrored key's snapshot came (or its request failed).
    mutating func snapshotAnswered() {
        snapshotsInFlight -= 1
    }
}
