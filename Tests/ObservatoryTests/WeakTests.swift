import Observatory
import Testing

@Suite struct WeakTests {
    @Test func weakForwardsTheMessagesOfItsObservable() {
        let number = Var(12)
        let weakNumber = number.weak()
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        var authors: [AnyAuthor] = []
        observer.observe(weakNumber) { update, author in
            updates.append(update)
            authors.append(author)
        }

        number <- 13

        #expect(updates == [Update(12, 13)])
        #expect(isSameObject(authors.first, number))
    }

    @Test func weakDoesNotKeepItsObservableAlive() {
        var number: Var<Int>? = Var(1)
        weak let weakVariable = number
        var weakNumber: Weak<Var<Int>>?
        if let number { weakNumber = Weak(number) }
        #expect(weakNumber?.observable === number)
        #expect(weakNumber?.origin === number)

        number = nil

        #expect(weakVariable == nil)
        #expect(weakNumber?.observable == nil)
        #expect(weakNumber?.origin == nil)
    }

    @Test func weakWrappersFitInAnArray() {
        let number = Var(12)
        let other = Var(13)
        var weakNumbers = [Weak<Var<Int>>]()
        weakNumbers.append(number.weak())
        weakNumbers.append(Weak(other))

        let liveValuesListed = weakNumbers.compactMap { $0.observable?.value } == [12, 13]
        #expect(liveValuesListed)
    }

    @Test func weakLeavesNoObservationBehindWhenItDies() {
        let number = Var(1)
        var weakNumber: Weak<Var<Int>>? = number.weak()
        #expect(observationCount(of: number) == 1)
        #expect(weakNumber != nil)

        weakNumber = nil

        #expect(observationCount(of: number) == 0)
    }

    @Test func observersOfAWeakAreReleasedWhenTheWeakDies() {
        let number = Var(1)
        var weakNumber: Weak<Var<Int>>? = number.weak()
        let observer = TestObserver()
        var captured: Token? = Token()
        weak let weakCaptured = captured
        if let weakNumber {
            observer.observe(weakNumber) { [captured] _ in _ = captured }
        }
        captured = nil

        weakNumber = nil

        #expect(weakCaptured == nil)
        #expect(registryCount(of: observer) == 0)
    }

    @Test func weakLetsGoOfItsObservationWhenTheObservableDies() {
        var number: Var<Int>? = Var(1)
        let weakNumber = Weak(number ?? Var(0))
        #expect(registryCount(of: weakNumber) == 1)

        number = nil

        #expect(registryCount(of: weakNumber) == 0)
    }
}
