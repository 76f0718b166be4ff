import Foundation

/// Makes the `requestId`s that let the server apply a retried write once
/// (docs/protocol.md, "Retry-safe writes"): random UUIDs, unique without coordination.
enum RequestIdentifier {
    static func make() -> String {
        UUID().uuidString
    }
}
