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
    /// One registry this receiver has observations in, and where its handlers
    /// sit in that registry's table (so that the registry removes them in O(1)).
    @usableFromInline
    struct Membership {
        @usableFromInline let registry: any ObservationRegistry
        /// The table slot of the first handler; a receiver rarely has more.
        @usableFromInline var slot: Int
        @usableFromInline var moreSlots: [Int] = []

        @usableFromInline
        init(registry: any ObservationRegistry, slot: Int) {
            self.registry = registry
            self.slot = slot
        }

    }

    /// The registries this receiver has observations in. Almost every observer
    /// observes one object, so the first is stored inline: no allocation.
    private struct Registries {
        var first: Membership?
        var others: [Membership] = []

        func contains(_ registry: some ObservationRegistry) -> Bool {
            first?.registry === registry || others.contains { $0.registry === registry }
        }

        var all: [any ObservationRegistry] {
            guard let first else { return [] }
            return [first.registry] + others.map(\.registry)
        }

        /// Where `registry`'s membership is: inline, at an index of `others`, or absent.
        func place(of registry: some ObservationRegistry) -> Int? {
            if first?.registry === registry { return -1 }
            return others.firstIndex { $0.registry === registry }
        }
    }

    private let registries = Locked(Registries())

    @usableFromInline
    init() {}

    /// Called by a registry, under its lock, whenever it adds a handler of this
    /// receiver at `slot` of its table.
    @usableFromInline
    func remember(_ registry: some ObservationRegistry, slot: Int) {
        registries.withLock { registries in
            // Changed in place (optional chaining, subscripts): no copy of a membership.
            guard registries.first != nil else {
                registries.first = Membership(registry: registry, slot: slot)
                return
            }
            switch registries.place(of: registry) {
            case .some(-1): registries.first?.moreSlots.append(slot)
            case let index?: registries.others[index].moreSlots.append(slot)
            case nil: registries.others.append(Membership(registry: registry, slot: slot))
            }
        }
    }

    /// Called by a registry, under its lock, when it ends this receiver's
    /// observations there: forgets the registry and returns the table slots of
    /// the receiver's handlers (the first and any more), or `nil` if it had none.
    @usableFromInline
    func forgetSlots(in registry: some ObservationRegistry) -> (first: Int, more: [Int])? {
        registries.withLock { registries in
            if let first = registries.first, first.registry === registry {
                registries.first = registries.others.popLast()
                return (first.slot, first.moreSlots)
            }
            guard let index = registries.others.firstIndex(where: { $0.registry === registry }) else { return nil }
            let membership = registries.others.remove(at: index)
            return (membership.slot, membership.moreSlots)
        }
    }

    /// Called by a registry, under its lock, when it moves one of this
    /// receiver's handlers from slot `old` to `new` (compacting its table).
    @usableFromInline
    func moveSlot(in registry: some ObservationRegistry, from old: Int, to new: Int) {
        registries.withLock { registries in
            switch registries.place(of: registry) {
            case .some(-1):
                if registries.first?.slot == old {
                    registries.first?.slot = new
                } else if let index = registries.first?.moreSlots.firstIndex(of: old) {
                    registries.first?.moreSlots[index] = new
                }
            case let index?:
                if registries.others[index].slot == old {
                    registries.others[index].slot = new
                } else if let position = registries.others[index].moreSlots.firstIndex(of: old) {
                    registries.others[index].moreSlots[position] = new
                }
            case nil:
                break
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
            if registries.first?.registry === registry {
                registries.first = registries.others.popLast()
            } else if let index = registries.others.firstIndex(where: { $0.registry === registry }) {
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
            registry.endObservations(of: self)
        }
    }
}
