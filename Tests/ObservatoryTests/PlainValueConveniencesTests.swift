import Observatory
import Testing

/// `int`, `float`, `double` and `string` on plain values, as variables have them.
@Suite struct PlainValueConveniencesTests {
    @Test func plainNumberTimesAVariableAsInSwiftObserversTests() {
        var product = 2
        product.int *= Var(7).int
        #expect(product == 14)
    }

    @Test func plainNumbersReadAndWriteThroughTheirProperty() {
        var integer = 3
        var float: Float = 1.5
        var double = 2.5
        integer.int += 1
        float.float *= 2
        double.double -= Var(0.5).double

        #expect(integer == 4)
        #expect(float == 3)
        #expect(double == 2)
    }

    @Test func optionalNumbersReadNilAsZeroAndStoreWhatIsSet() {
        var integer: Int? = nil
        var float: Float? = nil
        var double: Double? = nil
        #expect(integer.int == 0)
        #expect(float.float == 0)
        #expect(double.double == 0)

        integer.int += 5
        float.float += Var<Float?>(1.5).float
        double.double = Var<Double?>().double + 2

        #expect(integer == 5)
        #expect(float == 1.5)
        #expect(double == 2)
    }

    @Test func stringsReadNilAsEmptyAndAppendVariableText() {
        var text = "sky"
        var missing: String? = nil
        #expect(missing.string == "")

        text.string += Var(" blue").string
        missing.string += Var<String?>("red").string

        #expect(text == "sky blue")
        #expect(missing == "red")
    }

    @Test func numbersMixWithVariablesInOneExpression() {
        var total = 10
        total.int = total.int + Var(5).int * 2
        #expect(total == 20)
    }
}
