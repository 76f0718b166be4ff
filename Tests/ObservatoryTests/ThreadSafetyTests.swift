import Dispatch
import Observatory
import Synchronization
import Testing

/// One message of a sending thread: who sent it and its place in that
/// thread's sequence.
private struct Sent: Sendable, Equatable {
    let sender: Int
    let sequence: Int
}

/// Detects handlers of one observable running at the same time.
private final class OverlapProbe: Sendable {
    private let running = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)

    func enter() {
        if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlaps.add(1, ordering: .relaxed)
        }
    }

    func leave() {
        running.subtract(1, ordering: .sequentiallyConsistent)
    }

    var overlapCount: Int {
        overlaps.load(ordering: .relaxed)
    }
}

/// Holds an object until a thread takes it away, so that a test can choose
/// the thread on which the last reference goes.
private final class Slot<Object: AnyObject & Sendable>: Sendable {
    private let object: Locked<Object?>

    init(_ object: Object) {
        self.object = Locked(object)
    }

    func take() -> Object? {
        object.withLock { stored in
            defer { stored = nil }
            return stored
        }
    }
}

private let threadCount = 8
private let sendsPerThread = 2_000

@Suite struct ThreadSafetyTests {
    @Test func concurrentSendsAreDeliveredOnceEachNeverConcurrentlyAndInSenderOrder() {
        let messenger = Messenger<Sent>()
        let first = TestObserver()
        let second = TestObserver()
        let probe = OverlapProbe()
        let firstLog = ConcurrentValues<Sent>()
        let secondLog = ConcurrentValues<Sent>()
        first.observe(messenger) { sent in
            probe.enter()
            firstLog.record(sent)
            probe.leave()
        }
        second.observe(messenger) { sent in
            probe.enter()
            secondLog.record(sent)
            probe.leave()
        }

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: threadCount) { sender in
                for sequence in 0..<sendsPerThread {
                    messenger.send(Sent(sender: sender, sequence: sequence))
                }
            }
        }

        #expect(finished)
        #expect(probe.overlapCount == 0)
        for log in [firstLog.values, secondLog.values] {
            #expect(log.count == threadCount * sendsPerThread)
            for sender in 0..<threadCount {
                let sequences = log.filter { $0.sender == sender }.map(\.sequence)
                #expect(sequences == Array(0..<sendsPerThread))
            }
        }
        // Both observers see every message at the same place in one order.
        #expect(firstLog.values == secondLog.values)
    }

    @Test func concurrentSetsOfAVariableFormOneConsistentChainOfUpdates() {
        let number = Var(-1)
        let observer = TestObserver()
        let updates = ConcurrentValues<Update<Int>>()
        observer.observe(number) { updates.record($0) }

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
                for index in 0..<sendsPerThread {
                    number <- thread * sendsPerThread + index
                }
            }
        }

        let chain = updates.values
        #expect(finished)
        // Every value is set once and differs from all others: every set is a
        // change, and each update continues from the one before.
        #expect(chain.count == threadCount * sendsPerThread)
        #expect(chain.first?.old == -1)
        let breaks = zip(chain, chain.dropFirst()).filter { $0.new != $1.old }.count
        #expect(breaks == 0)
        #expect(Set(chain.map(\.new)).count == chain.count)
        #expect(number.value == chain.last?.new)
    }

    @Test func sendFromAnotherThreadDoesNotWaitForARunningHandler() {
        let messenger = Messenger<Int>()
        let observer = TestObserver()
        let received = ConcurrentValues<Int>()
        let otherSendReturned = ConcurrentValues<Bool>()
        observer.observe(messenger) { message in
            received.record(message)
            guard message == 1 else { return }
            let sent = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                messenger.send(2)
                sent.signal()
            }
            otherSendReturned.record(sent.wait(timeout: .now() + 10) == .success)
        }

        let finished = finishes(within: 20) { messenger.send(1) }

        #expect(finished)
        #expect(otherSendReturned.values == [true])
        #expect(received.values == [1, 2])
    }

    @Test func handlersSendingToEachOthersObservablesOnManyThreadsDoNotDeadlock() {
        let ping = Messenger<Int>()
        let pong = Messenger<Int>()
        let observer = TestObserver()
        let deliveries = Counter()
        observer.observe(ping) { hops in
            deliveries.increment()
            if hops > 0 { pong.send(hops - 1) }
        }
        observer.observe(pong) { hops in
            deliveries.increment()
            if hops > 0 { ping.send(hops - 1) }
        }
        let rounds = 200
        let hops = 10

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
                for _ in 0..<rounds {
                    (thread.isMultiple(of: 2) ? ping : pong).send(hops)
                }
            }
        }

        #expect(finished)
        #expect(deliveries.value == threadCount * rounds * (hops + 1))
    }

    @Test func observingStoppingAndDyingWhileOthersSendIsSafe() {
        let messenger = Messenger<Int>()
        let steady = TestObserver()
        let steadyCount = Counter()
        steady.observe(messenger) { _ in steadyCount.increment() }
        let senders = threadCount / 2

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
                if thread < senders {
                    for index in 0..<sendsPerThread { messenger.send(index) }
                    return
                }
                for index in 0..<(sendsPerThread / 4) {
                    let observer = TestObserver()
                    observer.observe(messenger) { _ in }
                    observer.observe(messenger).filter { $0 > 0 }.receive { _ in }
                    if index.isMultiple(of: 2) { observer.stopObserving(messenger) }
                    if index.isMultiple(of: 3) { messenger.stopBeingObserved(by: observer) }
                    // Otherwise the observer dies here, still observing.
                }
            }
        }

        #expect(finished)
        #expect(steadyCount.value == senders * sendsPerThread)
        #expect(observationCount(of: messenger) == 1)
    }

    @Test func observerAndObservableDyingOnDifferentThreadsLeaveNothingBehind() {
        var survivors = 0
        // Each observer observes many times, so that the closing messenger
        // meets the dying receiver's key many times in a row.
        for _ in 0..<3_000 {
            let number = Var(0)
            let observer = TestObserver()
            for _ in 0..<8 {
                observer.observe(number) { _ in }
                observer.observe(number).new().receive { _ in }
            }
            weak let weakNumber = number
            weak let weakObserver = observer
            let numberSlot = Slot(number)
            let observerSlot = Slot(observer)
            _ = consume number
            _ = consume observer

            DispatchQueue.concurrentPerform(iterations: 3) { thread in
                switch thread {
                case 0: _ = numberSlot.take()
                case 1: _ = observerSlot.take()
                default: weakNumber?.send()
                }
            }

            if weakNumber != nil || weakObserver != nil { survivors += 1 }
        }
        #expect(survivors == 0)
    }

    @Test func transformsAndVariablesAreSafeToUseFromManyThreads() {
        let number = Var(-1)
        let evens = number.new().filter { $0.isMultiple(of: 2) }
        let observer = TestObserver()
        let probe = OverlapProbe()
        let received = Counter()
        observer.observe(evens) { _ in
            probe.enter()
            received.increment()
            probe.leave()
        }

        let finished = finishes(within: 30) {
            DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
                for index in 0..<(sendsPerThread / 2) {
                    number.value = (thread * sendsPerThread + index) * 2
                }
            }
        }

        #expect(finished)
        #expect(probe.overlapCount == 0)
        #expect(received.value == threadCount * sendsPerThread / 2)
    }
}
