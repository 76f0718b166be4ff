/// Keeps an observer's observations alive.
///
/// An ``Observer`` owns exactly one receiver and holds it strongly:
///
/// ```swift
/// final class Dog: Observer {
///     let receiver = Receiver()
/// }
/// ```
///
/// When the receiver dies with its observer, every observation it holds ends
/// and nothing of them stays in memory; there are no tokens or cancellables to
/// keep.
public final class Receiver: Sendable {
    /// What messengers hold of this receiver; see ``ReceiverLink``.
    @usableFromInline
    let link = ReceiverLink()

    /// Creates a receiver without observations.
    public init() {}

    deinit {
        link.stopAll()
    }

    /// The number of observed objects, for tests.
    var registryCount: Int {
        link.registryCount
    }
}
