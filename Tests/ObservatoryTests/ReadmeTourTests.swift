import Foundation
import Observatory
import Testing

// The tour of docs/core.md, as code that compiles and asserts what the tour
// says. Each test is one section; keep them in step with the guide.

// MARK: Observers and observable objects

private enum Color: Sendable { case blue, grey, red }

/// An observable object: it owns a messenger.
private final class Sky: ObservableObject, Sendable {
    static let shared = Sky()
    let messenger = Messenger<Color>()
}

/// An observer: it owns a receiver.
private final class Dog: Observer, Sendable {
    let receiver = Receiver()
}

// MARK: Custom observable that is its own messenger (seed 000)

/// Restating `@unchecked Sendable` keeps the build free of warnings: Swift
/// warns on any subclass of `Messenger` without it (reported to the lead).
private final class Model: Messenger<String>, ObservableCache, @unchecked Sendable {
    var latestMessage: String { state } // ... either on demand
    var state = "initial state" {
        didSet {
            if state != oldValue {
                send(state) // ... or when the state changes
            }
        }
    }
}

// MARK: Codable variables

private final class Note: Codable {
    private(set) var text = Var("String Variable")
}

// MARK: Authors

private final class Collaborator: Observer {
    let receiver = Receiver()
    let sharedText: Var<String>
    private(set) var editsByOthers: [String] = []

    init(sharedText: Var<String>) {
        self.sharedText = sharedText
    }

    func observeText() {
        observe(sharedText).notFrom(self) { [unowned self] update, _ in
            editsByOthers.append(update.new) // someone else edited the text
        }
    }

    func editText(_ text: String) {
        sharedText.set(text, as: self) // identify as change author
    }
}

@Suite struct ReadmeTourTests {
    @Test func dogObservesTheSky() {
        let dog = Dog()
        var colors: [Color] = []
        dog.observe(Sky.shared) { color in
            colors.append(color) // marvel at the sky changing its color
        }
        var goOutside: [String] = []
        dog.observe(Sky.shared).map {
            $0 == .blue
        }.receive {
            goOutside.append("Will we go outside? \($0 ? "Yes" : "No")!")
        }
        var freeColors: [Color] = []
        observe(Sky.shared) { color in freeColors.append(color) }
        var onceColors: [Color] = []
        observeOnce(Sky.shared) { color in onceColors.append(color) }

        Sky.shared.send(.blue)
        Sky.shared.send(.grey)
        #expect(colors == [.blue, .grey])
        #expect(goOutside == ["Will we go outside? Yes!", "Will we go outside? No!"])
        #expect(freeColors == [.blue, .grey])
        #expect(onceColors == [.blue])
        #expect(dog.isObserving(Sky.shared))

        dog.stopObserving(Sky.shared) // no more messages from the sky
        Sky.shared.stopBeingObserved(by: FreeObserver.shared)
        Sky.shared.send(.red)
        #expect(colors == [.blue, .grey])
        #expect(freeColors == [.blue, .grey])

        dog.observe(Sky.shared) { colors.append($0) }
        Sky.shared.stopBeingObserved() // no more messages to anywhere
        Sky.shared.send(.red)
        #expect(colors == [.blue, .grey])
    }

    @Test func stoppingObservations() {
        let dog = Dog()
        let sky = Sky()
        var colors: [Color] = []
        dog.observe(sky) { colors.append($0) }
        dog.stopObserving() // no more messages from anywhere
        sky.send(.blue)
        dog.observe(sky) { colors.append($0) }
        sky.stopBeingObserved(by: dog) // no more messages to the dog
        sky.send(.grey)

        #expect(colors.isEmpty)
        #expect(!dog.isObserving(sky))
    }

    @Test func textMessengerDeliversMessages() {
        let observer = Dog()
        let textMessenger = Messenger<String>()
        var received: [String] = []
        observer.observe(textMessenger) { textMessage in
            received.append(textMessage) // respond to textMessage
        }

        textMessenger.send("my message")

        #expect(received == ["my message"])
    }

    @Test func variableSendsUpdates() {
        let observer = Dog()
        let number = Var(42)
        var differences: [Int] = []
        observer.observe(number) { update in
            let whatsTheBigDifference = update.new - update.old
            differences.append(whatsTheBigDifference)
        }

        number <- 123 // sets number.value
        number.send() // old and new are both 123

        #expect(differences == [81, 0])
    }

    @Test func propertyWrapperGivesDirectAccess() {
        let observer = Dog()
        @ObservableVar var number = 42
        var newValues: [Int] = []
        observer.observe($number) { update in newValues.append(update.new) }

        number = 123

        #expect(newValues == [123])
    }

    @Test func typeHoldingVariablesIsCodable() throws {
        let note = Note()
        note.text <- "Saved text"

        let data = try JSONEncoder().encode(note)
        let decoded = try JSONDecoder().decode(Note.self, from: data)

        #expect(String(decoding: data, as: UTF8.self) == #"{"text":"Saved text"}"#)
        #expect(decoded.text.value == "Saved text")
    }

    @Test func dataSavedBySwiftObserverLoads() throws {
        let swiftObserverData = Data(#"{"text":{"storedValue":"Saved text"}}"#.utf8)

        let note = try JSONDecoder().decode(Note.self, from: swiftObserverData) // note.text.value == "Saved text"

        #expect(note.text.value == "Saved text")
    }

    @Test func numberConveniences() {
        let numVar = Var<Int?>() // numVar.value == nil
        #expect(numVar.int == 0)
        numVar.int += 5 // numVar.value == 5
        #expect(numVar.value == 5)
        numVar <- Var(1) + 2 // numVar.value == 3
        #expect(numVar.value == 3)
    }

    @Test func titleLengthAdhocAndAsObject() {
        let observer = Dog()
        let title = Var<String?>()
        var adhocLengths: [Int] = []
        observer.observe(title).new().unwrap("Untitled").map({ $0.count }) { titleLength in
            adhocLengths.append(titleLength)
        }
        let titleLength = title.new().unwrap("Untitled").map { $0.count }
        var objectLengths: [Int] = []
        observer.observe(titleLength) { titleLength in
            objectLengths.append(titleLength)
        }

        title <- "Observatory"
        title <- nil

        #expect(adhocLengths == [11, 8])
        #expect(objectLengths == [11, 8])
    }

    @Test func transformOriginCanBeReplaced() {
        let titleLength = Var("Dummy Title").new().map { $0.count }
        let title = Var("Real Title")
        titleLength.origin.origin = title

        #expect(titleLength.latestMessage == 10)
    }

    @Test func prebuiltTransformObjects() {
        let observer = Dog()
        let messenger = Messenger<String>()
        let stringToInt = messenger.map { Int($0) } // sends Int?
        let shortMessages = messenger.filter { $0.count < 10 } // sends String if short
        let myNotifier = messenger.select("my notification") // sends Void
        var numbers: [Int?] = []
        var shorts: [String] = []
        var notifications = 0
        observer.observe(stringToInt) { numbers.append($0) }
        observer.observe(shortMessages) { shorts.append($0) }
        observer.observe(myNotifier) { // no argument
            notifications += 1
        }

        messenger.send("42")
        messenger.send("my notification")

        #expect(numbers == [42, nil])
        #expect(shorts == ["42"])
        #expect(notifications == 1)

        let errorCodes = Messenger<Int?>()
        let errorAlert = errorCodes.unwrap() // sends Int if not nil
        let pointsToShow = errorCodes.unwrap(0) // sends Int, 0 for nil
        var alerts: [Int] = []
        var points: [Int] = []
        observer.observe(errorAlert) { alerts.append($0) }
        observer.observe(pointsToShow) { points.append($0) }
        errorCodes.send(nil)
        errorCodes.send(404)
        #expect(alerts == [404])
        #expect(points == [0, 404])
    }

    @Test func chainedAdhocTransforms() {
        let observer = Dog()
        let numbers = Messenger<Int>()
        var received: [Int] = []
        observer.observe(numbers).map {
            "\($0)" // Int -> String
        }.filter {
            $0.count > 1 // suppress single digit integers
        }.map {
            Int.init($0) // String -> Int?
        }.unwrap { // Int? -> Int
            received.append($0) // receive and process resulting Int
        }

        for number in [7, 42, 9, 100] { numbers.send(number) }

        #expect(received == [42, 100])
    }

    @Test func modelIsItsOwnMessengerAndACache() {
        let observer = Dog()
        let model = Model()
        var states: [String] = []
        observer.observe(model) { states.append($0) }

        model.state = "new state"
        model.state = "new state" // unchanged: sends nothing
        model.send() // sends latestMessage

        #expect(states == ["new state", "new state"])
        #expect(model.latestMessage == "new state")
    }

    @Test func collaboratorsIgnoreTheirOwnEdits() {
        let sharedText = Var<String>()
        let alice = Collaborator(sharedText: sharedText)
        let bob = Collaborator(sharedText: sharedText)
        alice.observeText()
        bob.observeText()

        alice.editText("Alice was here")
        bob.editText("Bob too")

        #expect(alice.editsByOthers == ["Bob too"])
        #expect(bob.editsByOthers == ["Alice was here"])
    }

    @Test func weakObservables() {
        let observer = Dog()
        let number = Var(12)
        let weakNumber = number.weak()
        var updates: [Update<Int>] = []
        observer.observe(weakNumber) { update in
            updates.append(update) // process update of type Update<Int>
        }
        var weakNumbers = [Weak<Var<Int>>]()
        weakNumbers.append(weakNumber)

        number <- 13

        #expect(updates == [Update(12, 13)])
        #expect(weakNumbers.first?.observable?.value == 13)
    }
}
