/// The part of a ``Receiver`` that messengers hold on to: the list of
/// registries it has observations in.
///
/// Every handler entry of a messenger holds its receiver's link strongly, so a
/// messenger can always reach the link, even while the receiver itself is
/// dying on another thread. Identity of the link is identity of the receiver.
///
/// ## Locking
/// `registries` is guarded by its own lock. A messenger core calls in while
/// holding its lock (lock order: core, then link); the link never calls a core
/// while holding its own lock.
@usableFromInline
final class ReceiverLink: Sendable {
    /// The registries this receiver has observations in. Almost every observer
    /// observes one object, so the first is stored inline: no allocation.
    private struct Registries {
        var first: (any ObservationRegistry)?
        var others: [any ObservationRegistry] = []

        func contains(_ registry: some ObservationRegistry) -> Bool {
            first === registry || others.contains { $0 === registry }
        }

        var all: [any ObservationRegistry] {
            guard let first else { return [] }
            return [first] + others
        }
    }

    private let registries = Locked(Registries())

    @usableFromInline
    init() {}

    /// Called by a registry, under its lock, whenever the receiver gets an
    /// observation there; remembers the registry once.
    @usableFromInline
    func remember(_ registry: some ObservationRegistry) {
        registries.withLock { registries in
            guard !registries.contains(registry) else { return }
            if registries.first == nil {
                registries.first = registry
            } else {
                registries.others.append(registry)
            }
        }
    }

    /// Tells whether the receiver has observations in a registry.
    @usableFromInline
    func knows(_ registry: some ObservationRegistry) -> Bool {
        registries.withLock { $0.contains(registry) }
    }

    /// Called by a registry, under its lock, when the receiver's last
    /// observation there ends.
    @usableFromInline
    func forget(_ registry: some ObservationRegistry) {
        registries.withLock { registries in
            if registries.first === registry {
                registries.first = registries.others.popLast()
            } else if let index = registries.others.firstIndex(where: { $0 === registry }) {
                registries.others.remove(at: index)
            }
        }
    }

    /// The number of registries with observations of this receiver.
    var registryCount: Int {
        registries.withLock { $0.all.count }
    }

    /// Ends every observation of the receiver.
    func stopAll() {
        for registry in registries.withLock({ $0.all }) {
            registry.removeObservations(of: self)
        }
    }
}
