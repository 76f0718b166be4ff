import Foundation
import Observatory
import ObservatoryClient
import ObservatoryServer
import ObservatoryWire

/// Records every message an observable sends, with its author, from any thread.
final class Recorder<Message: Sendable>: Observer, Sendable {
    let receiver = Receiver()
    private let recorded = Locked<[(message: Message, author: ObjectIdentifier, peer: Author?, reset: Reset?)]>([])

    /// Records every message of `observable`.
    func record<O: ObservableObject>(_ observable: O) where O.Message == Message {
        observe(observable) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    /// Records the messages of `observable` that `excluded` did not author.
    func record<O: ObservableObject>(_ observable: O, notFrom excluded: AnyAuthor) where O.Message == Message {
        observe(observable).notFrom(excluded) { [weak self] (message: Message, author: AnyAuthor) in
            self?.append(message, author)
        }
    }

    private func append(_ message: Message, _ author: AnyAuthor) {
        let entry = (message, ObjectIdentifier(author), author as? Author, author as? Reset)
        recorded.withLock { $0.append(entry) }
    }

    var messages: [Message] { recorded.withLock { $0.map(\.message) } }
    /// The authors that were Peers (nil for other authors).
    var peers: [Author?] { recorded.withLock { $0.map(\.peer) } }
    var authors: [ObjectIdentifier] { recorded.withLock { $0.map(\.author) } }
    /// The authors that were Resets (nil for other authors).
    var resets: [Reset?] { recorded.withLock { $0.map(\.reset) } }
    var count: Int { recorded.withLock { $0.count } }
}

/// A thread-safe flag that tests raise from any thread.
final class Flag: Sendable {
    private let raised = Locked(false)
    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}
