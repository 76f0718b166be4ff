import Dispatch
import Foundation

/// Runs main-actor handlers, after checking that the message arrived on the main queue.
///
/// The main queue, not the main thread: on Linux, once `dispatchMain()` parks the
/// main thread, another thread drains the main queue, and the main actor runs there.
enum MainActorDelivery {
    /// Marks the main queue, so that a block tells whether it runs on it (or on a
    /// queue that targets it). Set once, never changed.
    private static let mainQueueKey: MainQueueKey = {
        let marker = MainQueueKey()
        DispatchQueue.main.setSpecific(key: marker.key, value: ())
        return marker
    }()

    /// Whether the caller runs where the main actor does: the main thread, or
    /// a block of the main queue or of a queue that targets it.
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey.key) != nil
    }

    /// What the program says when a main-actor handler would run off the main queue.
    static let offMainThread = """
        observeOnMainActor: a message arrived off the main queue, where its @MainActor handler must not run. \
        Deliver on the main queue: set ClientConfiguration.deliveryQueue = .main (the default on Apple \
        platforms), or send from the main actor.
        """

    /// Runs `body` on the main actor when called on the main queue; stops the program otherwise.
    static func run(_ body: @MainActor () -> Void) {
        guard isOnMainQueue else { preconditionFailure(offMainThread) }
        MainActor.assumeIsolated(body)
    }
}

/// The key that marks the main queue: an object that is never changed, and
/// that Dispatch reads under its own synchronization; so shared freely, on
/// every platform (Dispatch declares the key `Sendable` on some only).
private struct MainQueueKey: @unchecked Sendable {
    let key = DispatchSpecificKey<Void>()
}
