import Observatory
import Testing

@Suite struct NumberValueTests {
    @Test func optionalIntVariableWorksAsInSeed001() {
        let numVar = Var<Int?>()
        #expect(numVar.value == nil)
        #expect(numVar.int == 0)

        numVar.int += 5
        #expect(numVar.value == 5)

        numVar <- Var(1) + 2
        #expect(numVar.value == 3)
    }

    @Test func numberPropertiesReadNilAsZero() {
        #expect(Var<Int?>().int == 0)
        #expect(Var<Float?>().float == 0)
        #expect(Var<Double?>().double == 0)
        #expect(Var(2.5).double == 2.5)
        #expect(Var<Float>(1.5).float == 1.5)
    }

    @Test func numberPropertiesOfOptionalVariablesReadNilAsZero() {
        let missing: Var<Int>? = nil
        let present: Var<Int>? = Var(4)
        let missingOptional: Var<Double?>? = nil
        let presentNil: Var<Float?>? = Var<Float?>()
        let presentValue: Var<Double?>? = Var<Double?>(2.5)

        #expect(missing.int == 0)
        #expect(present.int == 4)
        #expect(missingOptional.double == 0)
        #expect(presentNil.float == 0)
        #expect(presentValue.double == 2.5)
    }

    @Test func settingANumberPropertySendsAnUpdate() {
        let number = Var<Double?>()
        let observer = TestObserver()
        var updates: [Update<Double?>] = []
        observer.observe(number) { updates.append($0) }

        number.double = 1.5
        number.double += 1

        #expect(updates == [Update(nil, 1.5), Update(1.5, 2.5)])
    }

    @Test func operatorsCombineVariablesAndNumbers() {
        let seven = Var(7)
        let two = Var(2)
        #expect(seven + 3 == 10)
        #expect(3 + seven == 10)
        #expect(seven + two == 9)
        #expect(seven - 3 == 4)
        #expect(10 - seven == 3)
        #expect(seven - two == 5)
        #expect(seven * 3 == 21)
        #expect(3 * seven == 21)
        #expect(seven * two == 14)
        #expect(seven / 2 == 3)
        #expect(14 / seven == 2)
        #expect(seven / two == 3)
    }

    @Test func operatorsReadNilAsZeroOnEitherSide() {
        let none = Var<Int?>()
        let five = Var<Int?>(5)
        let optionalTwo: Int? = 2
        let noNumber: Int? = nil
        #expect(none + 4 == 4)
        #expect(five + optionalTwo == 7)
        #expect(noNumber + five == 5)
        #expect(five - none == 5)
        #expect(none * five == 0)
        #expect(optionalTwo * five == 10)
        #expect(none / five == 0)
    }

    @Test func operatorsAcceptOptionalVariables() {
        let missing: Var<Int>? = nil
        let four: Var<Int>? = Var(4)
        let optionalThree: Var<Int?>? = Var<Int?>(3)
        let missingOptional: Var<Int?>? = nil
        #expect(four + 1 == 5)
        #expect(1 + missing == 1)
        #expect(four * optionalThree == 12)
        #expect(optionalThree - missingOptional == 3)
        #expect(four / Var(2) == 2)
        #expect(Var<Int?>(8) / four == 2)
    }

    @Test func operatorsWorkForFloatsAndDoubles() {
        let half = Var(0.5)
        let floatVar = Var<Float?>(1.5)
        #expect(half * 4 == 2.0)
        #expect(1 / half == 2.0)
        #expect(floatVar + Float(1) == 2.5)
        #expect(floatVar - Var<Float>(0.5) == 1.0)
    }

    @Test func resultOfAnOperatorCanBeAssignedToAVariable() {
        let total = Var(0.0)
        total <- Var(1.5) + 2
        #expect(total.value == 3.5)
    }
}
