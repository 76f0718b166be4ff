/// Changes several variables as one step: every new value is stored before any
/// observer of any of them hears of a change.
///
/// The client library applies a batch's changes to its mirrors with one group,
/// so that an observer of one mirror that reads another never finds half the
/// batch applied (docs/client.md, "Batches"). ``set(_:to:as:)`` stores a value
/// at once and holds its update; ``deliver()`` then tells the Observation
/// framework and delivers the held updates, variable by variable, in the order
/// of the calls.
///
/// A group is used by one thread, from its first `set` to its `deliver()`, and
/// must be delivered: a variable whose update it holds delivers nothing else
/// meanwhile (later sends queue behind the held update). A variable that
/// another thread is delivering to when the group stores its value gets its
/// update from that thread, in order, as any concurrent send does.
package final class UpdateGroup {
    /// What ``deliver()`` does for each variable changed, in order.
    private var pending: [() -> Void] = []

    /// An empty group.
    package init() {}

    /// Whether the group holds no change.
    package var isEmpty: Bool { pending.isEmpty }

    /// Stores `value` in `variable` now (an equal value changes nothing) and
    /// holds its update, authored by `author`, until ``deliver()``.
    package func set<Value>(_ variable: Var<Value>, to value: Value, as author: AnyAuthor) {
        guard let delivery = variable.storeHoldingUpdate(value, as: author) else { return }
        pending.append(delivery)
    }

    /// Tells trackers and delivers the held updates, in the order they were stored.
    package func deliver() {
        let deliveries = pending
        pending.removeAll()
        for delivery in deliveries {
            delivery()
        }
    }
}

extension Var {
    /// Stores `value` and queues its update without delivering it; returns
    /// what delivers it (and tells the Observation framework), or nil when the
    /// value equals the current one.
    fileprivate func storeHoldingUpdate(_ value: Value, as author: AnyAuthor) -> (() -> Void)? {
        let core = messenger.core
        let stored: (isTracked: Bool, isDeliverer: Bool)? = core.locked {
            let old = storage.pointee.value
            if let isEqual, isEqual(old, value) { return nil }
            storage.pointee.value = value
            let isTracked = storage.pointee.mayBeTracked()
            guard !core.state.pointee.isClosed else { return (isTracked, false) }
            core.state.pointee.queue.append(Update(old, value), from: author)
            // Another thread delivering now takes the update in its turn.
            guard !core.state.pointee.isDelivering else { return (isTracked, false) }
            core.state.pointee.isDelivering = true
            return (isTracked, true)
        }
        guard let stored else { return nil }
        return { [self] in
            if stored.isTracked {
                let (keyPath, observation) = core.locked { (storage.pointee.keyPath, storage.pointee.observation) }
                if let keyPath, let observation {
                    observation.registrar.willSet(self, keyPath: keyPath)
                    observation.registrar.didSet(self, keyPath: keyPath)
                }
            }
            if stored.isDeliverer { core.deliverQueuedMessages() }
        }
    }
}
