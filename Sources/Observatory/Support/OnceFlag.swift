import Synchronization

/// A flag that exactly one caller can claim, from any thread: it makes
/// "call this once" hold when two paths race to call it.
final class OnceFlag: Sendable {
    private let isClaimed = Atomic<Bool>(false)

    /// Returns `true` to the first caller only.
    func claim() -> Bool {
        isClaimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
