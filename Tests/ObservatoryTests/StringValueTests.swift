import Observatory
import Testing

@Suite struct StringValueTests {
    @Test func stringPropertyReadsNilAsEmpty() {
        #expect(Var<String?>().string == "")
        #expect(Var<String?>("text").string == "text")
        #expect(Var("plain").string == "plain")
    }

    @Test func stringPropertyOfOptionalVariablesReadsNilAsEmpty() {
        let missing: Var<String>? = nil
        let present: Var<String>? = Var("here")
        let presentNil: Var<String?>? = Var<String?>()
        #expect(missing.string == "")
        #expect(present.string == "here")
        #expect(presentNil.string == "")
    }

    @Test func settingTheStringPropertySendsAnUpdate() {
        let text = Var<String?>()
        let observer = TestObserver()
        var updates: [Update<String?>] = []
        observer.observe(text) { updates.append($0) }

        text.string = "a"
        text.string += "b"

        #expect(updates == [Update(nil, "a"), Update("a", "ab")])
    }

    @Test func plusConcatenatesVariablesAndStrings() {
        let hello = Var("Hello")
        let world = Var<String?>(" world")
        let none = Var<String?>()
        let optionalBang: String? = "!"
        let missing: Var<String>? = nil
        #expect(hello + "!" == "Hello!")
        #expect(">" + hello == ">Hello")
        #expect(hello + world == "Hello world")
        #expect(none + optionalBang == "!")
        #expect(optionalBang + world == "! world")
        #expect(missing + hello == "Hello")
        #expect(world + missing == " world")
    }

    @Test func variableOfStringPrintsAsItsText() {
        let text = Var<String?>("quoted")
        #expect("\(text)" == "quoted")
        #expect(text.debugDescription == #""quoted""#)
    }

    @Test func variableOfStringIsATextOutputStream() {
        var log = Var("start")
        let observer = TestObserver()
        var updates = 0
        observer.observe(log) { _ in updates += 1 }

        print(" end", terminator: "", to: &log)

        #expect(log.value == "start end")
        #expect(updates == 1)
    }

    @Test func resultOfConcatenationCanBeAssignedToAVariable() {
        let greeting = Var<String?>()
        greeting <- Var("a") + "b"
        #expect(greeting.value == "ab")
    }

    @Test func stringVariablesAreCollectionsOfTheirCharacters() {
        let text = Var("abc")
        #expect(text.count == 3)
        #expect(Array(text) == ["a", "b", "c"])
        #expect(String(text.reversed()) == "cba")
        #expect(text.first == "a")
        let optionalText = Var<String?>(nil)
        #expect(optionalText.isEmpty)
        optionalText <- "xy"
        #expect(optionalText.last == "y")
    }

    @Test func transformsStillApplyToStringVariables() {
        let observer = TestObserver()
        let text = Var("a")
        let lengths = text.map { $0.new.count }
        let newTexts = text.new()
        var received: [Int] = []
        var texts: [String] = []
        observer.observe(lengths) { received.append($0) }
        observer.observe(newTexts) { texts.append($0) }
        text <- "abc"
        #expect(received == [3])
        #expect(texts == ["abc"])
    }
}
