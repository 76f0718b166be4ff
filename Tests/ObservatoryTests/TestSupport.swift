import Dispatch
import Synchronization
import Testing

@testable import Observatory

/// An observer that owns nothing but its receiver, for tests that need one.
final class TestObserver: Observer, Sendable {
    let receiver = Receiver()
}

/// An object whose only job is to be an author, or to be captured by a
/// handler so that a weak reference can tell when the handler was released.
final class Token: Sendable {}

/// Values appended from handlers, whatever thread they run on (not an observer:
/// the test kit's `Recorder` is the one that observes).
final class ConcurrentValues<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    func record(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] {
        storage.withLock { $0 }
    }

    var count: Int {
        storage.withLock { $0.count }
    }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    func increment() {
        storage.add(1, ordering: .relaxed)
    }

    var value: Int {
        storage.load(ordering: .relaxed)
    }
}

/// Lets threads start a racing step at nearly the same moment: each arrives,
/// then spins (a bounded number of times) until all have arrived.
final class StartLine: Sendable {
    private let arrived = Atomic<Int>(0)
    private let runners: Int

    init(runners: Int) {
        self.runners = runners
    }

    func arriveAndWait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        var spins = 0
        while arrived.load(ordering: .sequentiallyConsistent) < runners, spins < 100_000 {
            spins += 1
        }
    }
}

/// Runs `work` on a global queue and tells whether it finished within
/// `seconds`: a deadlock or a hang fails the test instead of stopping the run.
func finishes(within seconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        work()
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success
}

/// Collects the elements of a stream until it finishes, `limit` elements have
/// arrived, or `timeout` has passed, whichever comes first.
///
/// - Returns: The elements, and whether the stream finished by itself.
func collect<Element: Sendable>(
    _ stream: AsyncStream<Element>,
    limit: Int,
    timeout: Duration = .seconds(5)
) async -> (elements: [Element], finished: Bool) {
    await withTaskGroup(of: ([Element], Bool)?.self) { group in
        group.addTask {
            var elements: [Element] = []
            for await element in stream {
                elements.append(element)
                if elements.count == limit { return (elements, false) }
            }
            return (elements, !Task.isCancelled)
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? ([], false)
    }
}

/// Tells whether two references point to the same object.
///
/// Tests compare authors through this function rather than with `===`
/// directly inside `#expect`: Swift 6.3.1 crashes compiling
/// an `===` check inside `#expect` whose left side is a plain `AnyObject`
/// such as `authors[0]` (SILGen, in the reabstraction thunk of the macro's
/// operator check).
func isSameObject(_ lhs: AnyObject?, _ rhs: AnyObject?) -> Bool {
    lhs === rhs
}

// MARK: - Internals, in one place

/// The number of live observations (handlers) of an observable object.
func observationCount(of observable: some ObservableObject) -> Int {
    observable.messenger.core.observationCount
}

/// The number of observables an observer's receiver still holds on to.
func registryCount(of observer: some Observer) -> Int {
    observer.receiver.registryCount
}
