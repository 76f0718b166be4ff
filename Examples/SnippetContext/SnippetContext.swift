import Foundation
import Observatory
import ObservatoryClient

// The names that the Swift fragments of the docs take from the text around them: a
// reader has met them earlier on the page. `.ci/snippets.sh` compiles every fragment (a ```swift
// block without `import` lines) with this module imported; nothing here runs.
//
// The mutable ones, and those of types that are not `Sendable`, are `nonisolated(unsafe)`: fragments
// change them from observation handlers, as the docs do with local variables, and no fragment runs.

/// A client that has not connected: the docs' `client` (docs/client.md).
public let client = ObservatoryClient(configuration: ClientConfiguration(name: "docs"))

/// A mirror of a remote key (docs/client.md).
public let variable = client.variable("sky.color", default: "blue")

/// The revision a program stored after the last change it handled (docs/client.md, resuming).
public let lastHandledVersion: Int64 = 0

/// What a program does with one change of a stream (docs/client.md).
public func handle(_ change: RemoteChange) {}

/// Any observer (docs/core.md).
public let observer = ExampleObserver()

/// The observer of docs/core.md's first example, a `Dog`, met again further down the page.
public let dog = ExampleObserver()

/// The observer of ObservatoryClient's DocC overview.
public let watcher = ExampleObserver()

/// The chat window of docs/client.md's presence example.
public let chatWindow = ExampleObserver()

/// A messenger of text (README.md, docs/core.md).
public let messenger = Messenger<String>()

/// A messenger of numbers (docs/core.md, transforms).
public let numbers = Messenger<Int>()

/// A variable of docs/core.md, observed as an async sequence.
public let number = Var(42)

/// An optional title (docs/core.md, transforms).
public let title = Var<String?>()

/// The three caches of docs/core.md's combined observation.
public let tv = Var("news")
/// A bowl: what is in it.
public let bowl = Var("empty")
/// A doorbell: how often it rang.
public let doorbell = Var(0)

/// A count that drives a tab's badge (README.md, bindings).
public let count = Var(0)

/// The tab whose badge `count` drives.
nonisolated(unsafe) public let tab = Tab()

/// A `Note` saved by SwiftObserver, whose variables stored `{"storedValue": …}` (docs/core.md).
public let swiftObserverData = Data(#"{"text":{"storedValue":"Saved text"}}"#.utf8)

/// A keyed observable (docs/core.md, observers called through a protocol).
nonisolated(unsafe) public let observable = KeyedObservableClass<String>()

/// Numbers a handler collects (docs/core.md).
nonisolated(unsafe) public var received: [Int] = []
/// Lengths a handler collects (docs/core.md, transforms as objects).
nonisolated(unsafe) public var objectLengths: [Int] = []
/// What a cache handed over (docs/core.md, caches).
nonisolated(unsafe) public var cached: [String] = []
/// What a combined observation saw (docs/core.md).
nonisolated(unsafe) public var moments: [String] = []
/// The values a keyed observation of the kitchen collects (docs/core.md).
nonisolated(unsafe) public var kitchen: [String] = []
