import Observatory
import Testing

/// A model with wrapped properties, the common use of the wrapper.
private final class Settings {
    @ObservableVar var volume = 3
    @Observable var name: String? = nil
}

@Suite struct ObservableVarTests {
    @Test func wrappedPropertyReadsAndWritesTheValueDirectly() {
        let settings = Settings()
        #expect(settings.volume == 3)

        settings.volume = 11

        #expect(settings.volume == 11)
        #expect(settings.$volume.value == 11)
    }

    @Test func projectedValueIsTheObservableVariable() {
        let settings = Settings()
        let observer = TestObserver()
        var updates: [Update<Int>] = []
        observer.observe(settings.$volume) { updates.append($0) }

        settings.volume = 5
        settings.volume = 5
        settings.$volume <- 6

        #expect(updates == [Update(3, 5), Update(5, 6)])
        #expect(settings.volume == 6)
    }

    @Test func observableIsAnotherNameForTheWrapper() {
        let settings = Settings()
        let observer = TestObserver()
        var updates: [Update<String?>] = []
        observer.observe(settings.$name) { updates.append($0) }

        settings.name = "studio"

        #expect(updates == [Update(nil, "studio")])
    }

    @Test func wrapperWorksOnLocalVariablesAsInSeed000() {
        @ObservableVar var number = 42
        let observer = TestObserver()
        var differences: [Int] = []
        observer.observe($number) { update in differences.append(update.new - update.old) }

        number = 123

        #expect(differences == [81])
        #expect(number == 123)
    }
}
