import Observatory
import Testing

/// A value type that is not `Equatable`: its variables cannot tell a change.
private struct Opaque {
    let number: Int
}

/// Creates a variable where the compiler does not know that `Value` is
/// `Equatable`.
private func makeVariable<Value>(_ value: Value) -> Var<Value> {
    Var(value)
}

@Suite struct VarTests {
    @Test func changeSendsUpdateWithOldAndNewValue() {
        let number = Var(42)
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        observer.observe(number) { updates.append($0) }

        number.value = 123
        number.value = 7

        #expect(updates == [Update(42, 123), Update(123, 7)])
        #expect(number.value == 7)
    }

    @Test func settingAnEqualValueSendsNoUpdate() {
        let text = Var("same")
        let observer = TestObserver()
        var updates = 0
        observer.observe(text) { _ in updates += 1 }

        text.value = "same"
        text <- "same"
        text.set("same", as: Token())

        #expect(updates == 0)
    }

    @Test func variableCreatedInGenericCodeStillSendsOnlyChanges() {
        let number = makeVariable(5)
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        observer.observe(number) { updates.append($0) }

        number <- 5
        number <- 6

        #expect(updates == [Update(5, 6)])
    }

    @Test func assignmentOperatorSetsTheValueAndSendsTheUpdate() {
        let number = Var(0)
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        observer.observe(number) { updates.append($0) }

        number <- 123

        #expect(number.value == 123)
        #expect(updates == [Update(0, 123)])
    }

    @Test func updateAuthorIsTheVariableUnlessSetAsAnotherAuthor() {
        let number = Var(0)
        let controller = Token()
        let observer = TestObserver()
        var authors: [AnyAuthor] = []
        observer.observe(number) { _, author in authors.append(author) }

        number <- 1
        number.value = 2
        number.set(42, as: controller)

        #expect(authors.count == 3)
        #expect(isSameObject(authors[0], number))
        #expect(isSameObject(authors[1], number))
        #expect(isSameObject(authors[2], controller))
        #expect(number.value == 42)
    }

    @Test func sendWithoutArgumentSendsTheCurrentValueAsOldAndNew() {
        let number = Var(9)
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        var authors: [AnyAuthor] = []
        observer.observe(number) { update, author in
            updates.append(update)
            authors.append(author)
        }

        number.send()

        #expect(updates == [Update(9, 9)])
        #expect(isSameObject(authors.first, number))
    }

    @Test func latestMessageHoldsTheCurrentValueAsOldAndNew() {
        let number = Var(3)
        number <- 4
        #expect(number.latestMessage == Update(4, 4))
    }

    @Test func variableOfNonEquatableValueSendsOnEverySet() {
        let opaque = Var(Opaque(number: 1))
        let observer = TestObserver()
        var received: [(Int, Int)] = []
        observer.observe(opaque) { received.append(($0.old.number, $0.new.number)) }

        opaque <- Opaque(number: 1)
        opaque.value = Opaque(number: 1)
        opaque.set(Opaque(number: 2), as: Token())

        #expect(received.map(\.0) == [1, 1, 1])
        #expect(received.map(\.1) == [1, 1, 2])
    }

    @Test func defaultInitializersStartEmpty() {
        #expect(Var<Int?>().value == nil)
        #expect(Var<String?>().value == nil)
        #expect(Var<Int>().value == 0)
        #expect(Var<Double>().value == 0)
        #expect(Var<String>().value == "")
    }

    @Test func optionalVariableSendsUpdatesFromNil() {
        let text = Var<String?>()
        let observer = TestObserver()
        var updates: [Update<String?>] = []
        observer.observe(text) { updates.append($0) }

        text.value = "a text"
        text <- nil
        text <- nil

        #expect(updates == [Update(nil, "a text"), Update("a text", nil)])
    }

    @Test func variableIsAnotherNameForVar() {
        let variable: Variable<Int> = Var(1)
        #expect(variable.value == 1)
    }

    @Test func variablesAreEqualWhenTheirValuesAre() {
        #expect(Var(1) == Var(1))
        #expect(Var(1) != Var(2))
        #expect(Var<String?>(nil) == Var<String?>(nil))
    }

    @Test func variablesCompareAsTheirValues() {
        #expect(Var(1) < Var(2))
        #expect(!(Var(2) < Var(1)))
        #expect(Var("b") > Var("a"))
        #expect([Var(3), Var(1), Var(2)].sorted().map(\.value) == [1, 2, 3])
    }

    @Test func updateDescribesOldAndNew() {
        #expect(Update(1, 2).description == "1 → 2")
    }
}
